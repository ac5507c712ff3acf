import { execFileSync } from 'node:child_process';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import { rmSync } from 'node:fs';
import t from 'tap';
import { releaseService } from '../../commands/service/handlers.js';
import { createProject, createService } from '../helpers/api-suite.js';
import { caddyBin, caddyLoads, requireCaddy } from '../helpers/caddy.js';
import { eventually, freePort, getVia } from '../helpers/net.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';


function tinyServer(port: number, text: string): Promise<Server> {
  const server = createHttpServer((_req, res) => res.end(text));
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

t.test('routes each domain to its service through Caddy', { skip: requireCaddy() }, async (t) => {
  const proxyPort = await freePort();
  const adminPort = await freePort();
  const env = {
    SLIPWAY_PROXY: 'caddy',
    SLIPWAY_CADDY_BIN: caddyBin,
    SLIPWAY_PROXY_HTTP_PORT: String(proxyPort),
    SLIPWAY_CADDY_ADMIN_LISTEN: `127.0.0.1:${adminPort}`,
    SLIPWAY_UPSTREAM_CHECK: '2',
  };
  let s: TestServer = await startTestServer(env);
  const dataDir = s.dataDir;
  t.teardown(async () => {
    await s.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const p = await createProject(s, 'Proxied');
  const svc = await createService(s, p.id, { name: 'site', repoFullName: 'acme/site', branch: 'main' });
  const added = await s.call('POST', `/api/services/${svc.id}/domains`, { body: { hostname: 'site.slipway.test' } });
  t.same(added.body, { ok: true, proxy: { ok: true, detail: 'caddy configuration loaded' } });
  t.equal((await getVia(proxyPort, 'site.slipway.test')).status, 503, 'nothing deployed yet: 503');

  // What a deployment does once its container answers (the deployment tests do it with Docker).
  const backendPort = await freePort();
  const backend = await tinyServer(backendPort, 'hello from site');
  t.teardown(() => backend.close());
  const released = await releaseService(s.app.commandContext('test'), svc.id, {
    deploymentId: 'd1',
    containerName: 'c1',
    upstreamPort: backendPort,
    buildMethod: null,
  });
  t.same(await s.app.proxy.sync(released.position), { ok: true, detail: 'caddy configuration loaded' });
  t.same(await getVia(proxyPort, 'site.slipway.test'), { status: 200, body: 'hello from site' }, 'reached by hostname');
  t.same(await getVia(svc.hostPort, 'localhost'), { status: 200, body: 'hello from site' }, 'and on its host port, where Caddy listens');

  await t.test('NAT rules flushed by a firewall reload come back on their own', { skip: s.app.upstreams ? false : 'iptables is not usable here (Slipway reloads Caddy instead)' }, async (t) => {
    const address = s.app.upstreams!.addressOf(svc.hostPort).host;
    const jump = execFileSync('iptables', ['-t', 'nat', '-S', 'OUTPUT'], { encoding: 'utf8' }).split('\n').find((l) => l.includes(address))!;
    const chain = jump.split(' ').at(-1)!;
    const loads = caddyLoads(dataDir);
    // Each command fails (and so the test) unless the rule it removes was there. Listing the rules now to see
    // them gone would race with the 2 s check; proxy-loop-guard.test.ts looks at the gap with the check held off.
    execFileSync('iptables', ['-t', 'nat', '-D', ...jump.split(' ').slice(1)]);
    execFileSync('iptables', ['-t', 'nat', '-F', chain]);
    const rules = () => execFileSync('iptables', ['-t', 'nat', '-S'], { encoding: 'utf8' });
    // Connections Caddy already holds to the service stay up (the kernel tracks them); new ones need the rules.
    await eventually(async () => rules(), (text) => text.includes(`-j ${chain}`) && text.includes(`--dport ${svc.hostPort} -j DNAT`), 10_000);
    t.match(rules(), `-A OUTPUT -d ${address}/32 -p tcp -j ${chain}`, 'the next check put the jump back');
    t.match(rules(), `-A ${chain} -d ${address}/32 -p tcp -m tcp --dport ${svc.hostPort} -j DNAT --to-destination 127.0.0.1:${backendPort}`, 'and the rule to the backend');
    t.same(await getVia(proxyPort, 'site.slipway.test'), { status: 200, body: 'hello from site' }, 'served again');
    t.equal(caddyLoads(dataDir), loads, 'without a Caddy reload');
  });
  t.equal((await getVia(proxyPort, 'other.slipway.test')).status, 404, 'unknown hosts get a real 404');

  const domainId = (await s.call('GET', `/api/services/${svc.id}/overview`)).body.domains[0].id;
  const changed = await s.call('PATCH', `/api/services/${svc.id}/domains/${domainId}`, { body: { hostname: 'www.slipway.test' } });
  t.equal(changed.body.proxy.ok, true);
  t.equal((await getVia(proxyPort, 'www.slipway.test')).body, 'hello from site');
  t.equal((await getVia(proxyPort, 'site.slipway.test')).status, 404, 'the old hostname no longer routes');

  await t.test('a rejected configuration keeps the previous one serving', async (t) => {
    const blocker = createTcpServer();
    const busyPort = await freePort();
    await new Promise<void>((resolve) => blocker.listen(busyPort, '0.0.0.0', resolve));
    t.teardown(() => blocker.close());
    // A second Slipway drives the same Caddy but wants a proxy port that is taken.
    const other = await startTestServer({
      SLIPWAY_PROXY: 'caddy',
      SLIPWAY_CADDY_ADMIN: `http://127.0.0.1:${adminPort}`,
      SLIPWAY_PROXY_HTTP_PORT: String(busyPort),
    });
    t.teardown(() => other.close());
    const q = await createProject(other, 'Other');
    const o = await createService(other, q.id, { name: 'o', repoFullName: 'acme/o', branch: 'main' });
    const refused = await other.call('POST', `/api/services/${o.id}/domains`, { body: { hostname: 'o.slipway.test' } });
    t.equal(refused.status, 200, 'the domain is stored');
    t.equal(refused.body.proxy.ok, false);
    t.match(refused.body.proxy.detail, /caddy rejected the configuration \(HTTP 400\).*address already in use/);
    t.equal((await getVia(proxyPort, 'www.slipway.test')).body, 'hello from site', 'the previous config still serves');
  });

  /** The pids of the Caddy processes running for this data directory. */
  const caddyPids = () => execFileSync('pgrep', ['-f', `${dataDir}/caddy/bootstrap.json`], { encoding: 'utf8' }).trim().split('\n');

  await t.test('a crashed Caddy is restarted and given the routes again', async (t) => {
    const [crashed] = caddyPids();
    execFileSync('pkill', ['-KILL', '-f', `${s.dataDir}/caddy/bootstrap.json`]);
    const back = await eventually(() => getVia(proxyPort, 'www.slipway.test'), (r) => r.body === 'hello from site', 15_000);
    t.equal(back.body, 'hello from site');
    const restarted = caddyPids();
    t.equal(restarted.length, 1, 'one Caddy again');
    t.not(restarted[0], crashed, 'a new process');
  });

  await t.test('the sites keep answering while Slipway is stopped, and a restart adopts the same Caddy', async (t) => {
    const running = caddyPids();
    await s.stopKeepingData();
    t.equal((await getVia(proxyPort, 'www.slipway.test')).body, 'hello from site', 'served with Slipway down');
    const loads = caddyLoads(dataDir);
    s = await startTestServer(env, s.dataDir);
    t.equal((await getVia(proxyPort, 'www.slipway.test')).body, 'hello from site', 'still served after the restart');
    t.same(caddyPids(), running, 'the same Caddy process, adopted');
    t.equal(caddyLoads(dataDir), loads + 1, 'and given the routes once');
  });

  const deleted = await s.call('DELETE', `/api/services/${svc.id}`);
  t.equal(deleted.body.proxy.ok, true);
  t.equal((await getVia(proxyPort, 'www.slipway.test')).status, 404, 'deleting the service removes its route');
});

t.test('a Caddy that cannot start: the proxy result says why', async (t) => {
  const s = await startTestServer({ SLIPWAY_PROXY: 'caddy', SLIPWAY_CADDY_BIN: '/bin/false', SLIPWAY_CADDY_ADMIN_LISTEN: `127.0.0.1:${await freePort()}` });
  t.teardown(() => s.close());
  const p = await createProject(s, 'No proxy');
  const svc = await createService(s, p.id, { name: 'x', repoFullName: 'acme/x', branch: 'main' });
  const r = await s.call('POST', `/api/services/${svc.id}/domains`, { body: { hostname: 'x.slipway.test' } });
  t.equal(r.status, 200);
  t.equal(r.body.proxy.ok, false);
  t.match(r.body.proxy.detail, /caddy could not be started|caddy admin API unreachable/);
});
