import { createKey, createProject, createService } from './api-suite.js';
import type { TestServer } from './test-server.js';

/** A long, varied history: every kind of event, with updates, deletes and transfers interleaved. */
export async function runMixedScenario(s: TestServer, rounds = 6) {
  const must = async (method: string, path: string, body?: unknown) => {
    const r = await s.call(method, path, body === undefined ? {} : { body });
    if (r.status !== 200) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const projects = [];
  const deployments: [string, string][] = [];
  for (let round = 0; round < rounds; round++) {
    const p = await createProject(s, `Mixed ${round}`);
    projects.push(p);
    const db = await createService(s, p.id, { name: `db${round}`, repoFullName: 'database:postgres', repoUrl: 'database', branch: 'main', internalPort: 5432, databasePublicEnabled: round % 2 === 0, env: [] });
    const web = await createService(s, p.id, {
      name: `web${round}`,
      repoFullName: 'acme/web',
      branch: 'main',
      gitToken: `token-${round}`,
      env: [{ key: 'DATABASE_URL', value: `\${db${round}.DATABASE_URL}` }],
    });
    const img = await createService(s, p.id, { name: `img${round}`, repoUrl: 'docker-image', dockerImage: 'nginx:1.27', branch: 'main', runtimeMode: 'web', internalPort: 80, env: [] });
    const worker = await createService(s, p.id, { name: `jobs${round}`, repoUrl: 'https://git.example.com/a/b.git', branch: 'main', runtimeMode: 'worker' });
    for (let i = 0; i < 5; i++) await must('POST', `/api/services/${web.id}/env`, { key: `K${i}`, value: `value-${round}-${i}` });
    await must('POST', `/api/services/${web.id}/env`, { key: 'K1', value: 'changed' });
    const env = (await must('GET', `/api/services/${web.id}/overview`)).env;
    await must('DELETE', `/api/services/${web.id}/env/${env.find((e: { key: string }) => e.key === 'K2').id}`);
    await must('POST', `/api/services/${web.id}/domains`, { hostname: `web${round}.example.com` });
    await must('POST', `/api/services/${img.id}/domains`, { hostname: `img${round}.example.com` });
    const domains = (await must('GET', `/api/services/${img.id}/overview`)).domains;
    await must('PATCH', `/api/services/${img.id}/domains/${domains[0].id}`, { hostname: `image${round}.example.com` });
    await must('PATCH', `/api/services/${web.id}`, { buildCommand: 'npm run build', internalPort: 4000 + round, gitToken: `rotated-${round}` });
    await must('PATCH', `/api/projects/${p.id}`, { description: `round ${round}` });
    const deployment = (await must('POST', `/api/services/${img.id}/deployments`)).deployment;
    deployments.push([img.id, deployment.id]);
    if (round > 0) await must('POST', `/api/services/${worker.id}/transfer`, { targetProjectId: projects[round - 1]!.id });
    if (round % 3 === 2) await must('DELETE', `/api/services/${db.id}`);
    if (round % 2 === 1) {
      const k = await createKey(s, 'read', [p.id]);
      await must('DELETE', `/api/keys/${k.key.id}`);
    }
  }
  // Every deployment ends (with the engine unreachable in these tests, quickly) before the history is compared.
  for (const [serviceId, id] of deployments) {
    for (let i = 0; i < 200; i++) {
      const r = await s.call('GET', `/api/services/${serviceId}/deployments`);
      const status = r.status === 200 ? r.body.deployments.find((d: { id: string }) => d.id === id)?.status : 'gone';
      if (!['queued', 'running'].includes(status)) break;
      await new Promise((done) => setTimeout(done, 50));
    }
  }
  await must('DELETE', `/api/projects/${projects[1]!.id}`);
  return projects;
}
