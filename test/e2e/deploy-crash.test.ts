import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { LABEL } from '../../src/runtime/container-runtime.js';
import { PACK_ENV, containersOf, requireDocker, imagesOf, removeProjectLeftovers, TEST_IMAGES } from '../helpers/docker.js';
import { spawnServe } from '../helpers/cli-process.js';
import { startGitServer } from '../helpers/git-server.js';

/** Slipway as its own process, so it can be killed with SIGKILL like a crash would. */
async function serve(dataDir: string, env: Record<string, string>) {
  const { child, url } = await spawnServe(dataDir, env);
  const key = readFileSync(join(dataDir, 'bootstrap-key'), 'utf8').trim();
  const call = async (method: string, path: string, body?: unknown) => {
    const r = await fetch(url + path, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return (await r.json()) as any;
  };
  return { child, call };
}

const killed = (child: ChildProcess) =>
  new Promise<void>((ok) => {
    child.once('exit', () => ok());
    child.kill('SIGKILL');
  });

async function until(check: () => Promise<boolean>, timeoutMs = 60_000) {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 150));
  }
}

t.test('SIGKILL during a build or a start: after restart nothing is left running or orphaned', { skip: await requireDocker() }, async (t) => {
  const git = await startGitServer();
  t.teardown(() => git.close());
  const marker = `crash-build-${Date.now()}`;
  git.push('acme/slow-build', { Dockerfile: `FROM ${TEST_IMAGES.python}\nRUN echo ${marker} && sleep 120\n` });
  git.push('acme/slow-start', {
    // The line it prints is not in the Dockerfile, so seeing it means the container runs.
    Dockerfile: `FROM ${TEST_IMAGES.python}\nCMD ["sh", "-c", "echo listening-in-$((60 * 2))-seconds; sleep 120"]\n`,
  });
  const dataDir = mkdtempSync(join(tmpdir(), 'slipway-crash-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const env = { SLIPWAY_GIT_BASE_URL: git.baseUrl, SLIPWAY_LOG: 'json', SLIPWAY_START_TIMEOUT: '100', ...PACK_ENV };

  let slipway = await serve(dataDir, env);
  t.teardown(() => slipway.child.kill('SIGKILL'));
  const project = (await slipway.call('POST', '/api/projects', { name: 'Crash', description: '' })).project;
  t.teardown(() => removeProjectLeftovers(project.id));
  const create = async (name: string, repo: string) =>
    (await slipway.call('POST', `/api/projects/${project.id}/services`, { name, repoFullName: repo, branch: 'main', internalPort: 8080 })).service;
  const building = await create('building', 'acme/slow-build');
  const starting = await create('starting', 'acme/slow-start');
  const inBuild = (await slipway.call('POST', `/api/services/${building.id}/deployments`)).deployment;
  const inStart = (await slipway.call('POST', `/api/services/${starting.id}/deployments`)).deployment;

  const logText = async (id: string) => ((await slipway.call('GET', `/api/deployments/${id}/logs`)).logs as { line: string }[]).map((l) => l.line).join('\n');
  await until(async () => (await logText(inBuild.id)).includes(marker));
  await until(async () => (await logText(inStart.id)).includes('listening-in-120-seconds'));
  const alive = await containersOf({ [LABEL.deployment]: inStart.id });
  t.equal(alive.length, 1, 'the starting container exists when Slipway dies');
  await killed(slipway.child);

  slipway = await serve(dataDir, env);
  for (const [service, deployment] of [[building, inBuild], [starting, inStart]] as const) {
    const found = (await slipway.call('GET', `/api/services/${service.id}/deployments`)).deployments.find((d: { id: string }) => d.id === deployment.id);
    t.match(found, { status: 'failed', reason: /^Slipway stopped while this deployment was running/ }, `${service.name}: failed with a reason`);
    t.ok(found.finishedAt, 'and finished');
    t.match(await logText(deployment.id), /Slipway stopped while this deployment was running/, 'its log says so');
    t.same(await containersOf({ [LABEL.deployment]: deployment.id }), [], `${service.name}: no container left`);
    t.same(await imagesOf({ [LABEL.deployment]: deployment.id }), [], `${service.name}: no image left`);
  }
  // The engine cancels a build whose client went away and removes its intermediate container.
  await until(async () => (await containersOf({})).every((c) => !c.Command.includes(marker)), 30_000).catch(() => undefined);
  const { docker } = await import('../helpers/docker.js');
  const stray = (await docker.listContainers({ all: true })).filter((c) => c.Command.includes(marker));
  t.same(stray, [], 'the interrupted build left no container behind');

  const again = (await slipway.call('POST', `/api/services/${building.id}/deployments`)).deployment;
  t.equal(again.status, 'queued', 'the service deploys again after the restart');
  await slipway.call('POST', `/api/deployments/${again.id}/abort`);
  await killed(slipway.child);
});
