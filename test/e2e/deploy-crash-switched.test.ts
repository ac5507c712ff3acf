import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { LABEL } from '../../src/runtime/container-runtime.js';
import { caddyBin, requireCaddy } from '../helpers/caddy.js';
import { deployEnv, deploymentOf, logLines, outcome, probe, queueDeployment, waitForDeployment } from '../helpers/deploy.js';
import { containersOf, docker, imagesOf, requireDocker } from '../helpers/docker.js';
import { startGitServer } from '../helpers/git-server.js';
import { freePort, waitFor } from '../helpers/net.js';
import { answerOf, eventsOf, installation } from '../helpers/slipway-process.js';
import { addDomain, createService } from '../helpers/http-resources.js';
import { versionedApp } from '../helpers/apps.js';

/** A Caddy of the test's own, as an operator's external Caddy would be. */
async function startCaddy() {
  const dir = mkdtempSync(join(tmpdir(), 'slipway-caddy-'));
  const admin = `127.0.0.1:${await freePort()}`;
  writeFileSync(join(dir, 'caddy.json'), JSON.stringify({ admin: { listen: admin } }));
  const child = spawn(caddyBin, ['run', '--config', join(dir, 'caddy.json')], {
    env: { ...process.env, HOME: dir, XDG_DATA_HOME: join(dir, 'data'), XDG_CONFIG_HOME: join(dir, 'config') },
    stdio: 'ignore',
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await waitFor('the test Caddy to answer', async () => (await fetch(`http://${admin}/config/`).catch(() => null))?.ok, Boolean, 20_000);
  return {
    admin,
    async stop() {
      child.kill('SIGKILL');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

type CaddyConfig = { admin: { listen: string }; apps: { http: { servers: Record<string, { routes: { '@id'?: string; handle: { upstreams?: { dial: string }[] }[] }[] }> } } };

/** Where a configuration sends a service's host port, if anywhere. */
const dialOf = (config: CaddyConfig, serviceId: string) =>
  Object.values(config.apps.http.servers)
    .flatMap((server) => server.routes)
    .find((route) => route['@id'] === `slipway-port-${serviceId}`)?.handle[0]?.upstreams?.[0]?.dial;

/**
 * The admin endpoint Slipway is given: it hands every configuration on to the real Caddy, except the first
 * one `killOn` matches, whose sender it SIGKILLs before answering. Slipway sends a configuration only after
 * recording the release it carries, and waits for the answer before it records the end of the deployment:
 * the kill falls exactly between the two, with no timing involved.
 */
async function startKillingAdmin(caddyAdmin: string) {
  let armed: { pid: number; matches: (config: CaddyConfig) => boolean; killed: () => void } | null = null;
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const config = req.url === '/load' ? (JSON.parse(body) as CaddyConfig) : null;
      if (config && armed?.matches(config)) {
        process.kill(armed.pid, 'SIGKILL');
        armed.killed();
        armed = null;
        return;
      }
      // Slipway names this endpoint as the admin listener; the real Caddy must keep its own.
      if (config) config.admin.listen = caddyAdmin;
      fetch(`http://${caddyAdmin}${req.url}`, {
        method: req.method,
        headers: { 'content-type': 'application/json' },
        ...(config ? { body: JSON.stringify(config) } : {}),
      })
        .then(async (answer) => res.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text()))
        .catch((error: unknown) => res.writeHead(502).end(String(error)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** Resolves once the process `pid` was killed on a configuration `matches` accepts. */
    killOn(pid: number, matches: (config: CaddyConfig) => boolean): Promise<void> {
      return new Promise((killed) => (armed = { pid, matches, killed }));
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

t.test('SIGKILL after the route switched: the deployment ends succeeded at the restart', { skip: (await requireDocker()) || requireCaddy() }, async (t) => {
  const git = await startGitServer();
  t.teardown(() => git.close());
  git.push('acme/switched', versionedApp('switched v1'));
  const caddy = await startCaddy();
  t.teardown(() => caddy.stop());
  const admin = await startKillingAdmin(caddy.admin);
  t.teardown(() => admin.close());
  // With an external Caddy, Slipway sends it a configuration at every switch (no NAT rules).
  const { env, proxyPort } = await deployEnv({ SLIPWAY_GIT_BASE_URL: git.baseUrl, SLIPWAY_CADDY_ADMIN: admin.url });
  const slipway = installation(t, env);
  let s = await slipway.start();
  const projectId = await slipway.createProject('Crash switched');
  const svc = await createService(s, projectId, { name: 'switched', repoFullName: 'acme/switched', branch: 'main', internalPort: 8080 });
  await addDomain(s, svc.id, 'switched.crash.test');
  const v1 = await waitForDeployment(s, svc.id, (await queueDeployment(s, svc.id)).id);
  t.equal(outcome(v1), 'succeeded', 'a first release');
  t.same(await probe(proxyPort, 'switched.crash.test'), { status: 200, body: 'switched v1' }, 'it answers on its domain');
  const v1Upstream = (await docker.getContainer(v1.containerName).inspect()).NetworkSettings.Ports['8080/tcp']![0]!.HostPort;

  git.push('acme/switched', versionedApp('switched v2'));
  const killed = admin.killOn(s.pid, (config) => {
    const dial = dialOf(config, svc.id);
    return dial !== undefined && dial !== `127.0.0.1:${v1Upstream}`;
  });
  const v2 = (await queueDeployment(s, svc.id)).id;
  await Promise.race([
    killed,
    new Promise((_, fail) => setTimeout(() => fail(new Error('waited 120 s for the switch to v2 to reach the proxy')), 120_000).unref()),
  ]);
  await slipway.crash();
  t.same(await probe(proxyPort, 'switched.crash.test'), { status: 200, body: 'switched v1' }, 'while Slipway is down, Caddy still serves v1: the switch never reached it');

  s = await slipway.start();
  const events = (await eventsOf(s, `service-${svc.id}`)).filter((e) => e.type === 'ServiceReleased').map((e) => e.data.deploymentId);
  t.same(events, [v1.id, v2], 'releases: v1, then v2 (recorded before the kill), none since');
  const recovered = await deploymentOf(s, svc.id, v2);
  t.match(recovered, { status: 'succeeded', reason: null, finishedAt: String }, 'the restart completes the deployment');
  t.equal((await logLines(s, v2)).at(-1), 'Slipway restarted after this deployment had switched its route; it is complete', 'its log says why');
  t.match(
    (await eventsOf(s, `deployment-${v2}`)).at(-1),
    { type: 'DeploymentSucceeded', actor: 'system:deployer' },
    'recorded by the recovery',
  );
  const V2 = { status: 200, body: 'switched v2' };
  t.same(await answerOf(proxyPort, 'switched.crash.test', V2), V2, 'the site answers from v2 on its domain');
  t.same(await probe(svc.hostPort), { status: 200, body: 'switched v2' }, 'and on its host port');
  const current = await docker.getContainer(recovered!.containerName).inspect();
  t.equal(current.HostConfig.RestartPolicy?.Name, 'unless-stopped', 'the engine keeps the released container running');
  t.same(await containersOf({ [LABEL.deployment]: v1.id }), [], 'the previous container is swept');
  t.equal((await imagesOf({ [LABEL.deployment]: v1.id })).length, 1, 'its image stays: its release is kept for rollbacks');
  const releases = (await s.call('GET', `/api/services/${svc.id}/releases`)).body.releases as { deploymentId: string; version: number; current: boolean }[];
  t.same(releases.map((r) => [r.version, r.deploymentId, r.current]), [[2, v2, true], [1, v1.id, false]], 'the release it switched to is in the history, current');

  await t.test('after the restart the service deploys again', async (t) => {
    git.push('acme/switched', versionedApp('switched v3'));
    const v3 = await waitForDeployment(s, svc.id, (await queueDeployment(s, svc.id)).id);
    t.equal(outcome(v3), 'succeeded', 'a new deployment succeeds');
    const V3 = { status: 200, body: 'switched v3' };
    t.same(await answerOf(proxyPort, 'switched.crash.test', V3), V3, 'its domain answers the new version');
    t.same(await answerOf(svc.hostPort, 'localhost', V3), V3, 'its host port too');
  });
});
