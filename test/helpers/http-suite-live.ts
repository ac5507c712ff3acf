import type { Test } from 'tap';
import { deploy, logLines, probe } from './deploy.js';
import { createProject, createService, testWebService } from './http-resources.js';
import { readSseToEnd } from './http-sse-end.js';
import type { TestServer } from './test-server.js';

/** What needs a real deployment: project status, service state after it, and the streams of finished work. */
export function liveTests(t: Test, server: () => TestServer) {
  t.test('a project is idle until one of its services has a successful deployment, then active', async (t) => {
    const s = server();
    const p = await createProject(s, 'Live');
    const web = await createService(s, p.id, testWebService('web'));
    const idle = await createService(s, p.id, testWebService('never-deployed'));

    const before = (await s.call('GET', '/api/projects/live')).body.project;
    t.equal(before.status, 'idle', 'idle before any deployment');
    t.same(before.services.map((x: { id: string; status: string }) => [x.id, x.status]).sort(), [[web.id, 'idle'], [idle.id, 'idle']].sort());
    const overview = (await s.call('GET', `/api/services/${web.id}/overview`)).body;
    t.equal(overview.publicIp, '203.0.113.7', 'publicIp is SLIPWAY_PUBLIC_IP');

    const { queued, done } = await deploy(s, web.id);
    t.match(queued, { status: 'queued', commitSha: null, imageTag: null, containerName: null, startedAt: null, finishedAt: null, trigger: 'manual' });
    t.match(done, { status: 'succeeded', reason: null, buildMethod: 'image', imageTag: 'slipway/test-web:bookworm' }, `the deployment succeeded (${done.reason})`);

    const after = (await s.call('GET', '/api/projects/live')).body.project;
    t.equal(after.status, 'active', 'active once one service has a successful deployment');
    const deployed = after.services.find((x: { id: string }) => x.id === web.id);
    const untouched = after.services.find((x: { id: string }) => x.id === idle.id);
    t.match(deployed, { status: 'active', reachable: true, lastDeployedAt: /^\d{4}-\d\d-\d\dT/ });
    t.match(untouched, { status: 'idle', reachable: false, lastDeployedAt: null }, 'the other service stays idle');
    t.ok(Date.parse(after.lastUpdatedAt) > Date.parse(before.lastUpdatedAt), 'lastUpdatedAt moved with the service');
    t.equal(after.lastUpdatedAt, deployed.updatedAt, "lastUpdatedAt is the service's latest change");
    const listed = (await s.call('GET', '/api/projects')).body.projects.find((x: { id: string }) => x.id === p.id);
    t.equal(listed?.status, 'active', 'the project list says so too');
    t.match(await probe(web.hostPort), { status: 200, body: 'hello from the test image' }, 'the service answers on its host port');
    t.equal((await s.call('GET', `/api/services/${web.id}/overview`)).body.publicIp, '203.0.113.7');

    await t.test('the stream of a finished deployment: the whole log as snapshot, then the end', async (t) => {
      const logs = (await s.call('GET', `/api/deployments/${done.id}/logs`)).body.logs;
      t.ok(logs.length > 0, 'the deployment has a log');
      t.match(logs.at(-1).line, /^Deployment succeeded/);
      const stream = await readSseToEnd(`${s.url}/api/deployments/${done.id}/stream`, s.key);
      t.equal(stream.status, 200);
      t.match(stream.contentType, /^text\/event-stream/);
      t.same(stream.events.map((e) => e.event), ['snapshot'], 'one snapshot, no log or ping after it, and the server closed the stream');
      t.same(stream.events[0]?.data, logs, 'the snapshot is the whole log');
      t.same((await logLines(s, done.id)).length, logs.length, 'nothing was added to the log meanwhile');
    });

    await t.test('the runtime stream of a service with nothing running: empty snapshot, closed status, end', async (t) => {
      const stream = await readSseToEnd(`${s.url}/api/services/${idle.id}/runtime-logs/stream`, s.key);
      t.equal(stream.status, 200);
      t.match(stream.contentType, /^text\/event-stream/);
      t.same(
        stream.events.map((e) => [e.event, e.data]),
        [
          ['snapshot', []],
          ['status', { ok: false, closed: true }],
        ],
      );
    });
  });
}
