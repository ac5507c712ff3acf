import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import t from 'tap';
import { releaseService } from '../../commands/service/handlers.js';
import { createProject, createService } from '../helpers/api-suite.js';
import { caddyLoads, requireCaddy } from '../helpers/caddy.js';
import { probe } from '../helpers/deploy.js';
import { eventually, freePort } from '../helpers/net.js';
import { required } from '../helpers/requirements.js';
import { startTestServer } from '../helpers/test-server.js';

const GUARD = { status: 502, body: 'The route to this service is being restored.\n' };
const SERVED = { status: 200, body: 'hello from guarded' };

const natRules = () => execFileSync('iptables', ['-t', 'nat', '-S'], { encoding: 'utf8' });

function tinyServer(port: number, text: string): Promise<Server> {
  const server = createServer((_req, res) => res.end(text));
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

t.test('with its NAT rules gone, a request Caddy forwards to itself is answered 502, never looped', { skip: requireCaddy() }, async (t) => {
  const proxyPort = await freePort();
  const s = await startTestServer({
    SLIPWAY_PROXY: 'caddy',
    SLIPWAY_PROXY_HTTP_PORT: String(proxyPort),
    SLIPWAY_CADDY_ADMIN_LISTEN: `127.0.0.1:${await freePort()}`,
    // The periodic repair must not put the rules back while the test looks at what happens without them.
    SLIPWAY_UPSTREAM_CHECK: '3600',
  });
  t.teardown(() => s.close());
  const noNat = required(s.app.upstreams ? false : 'iptables is not usable here (not root?): there are no NAT rules to lose');

  await t.test('the loop guard answers, then the repaired rules serve again', { skip: noNat }, async (t) => {
    const p = await createProject(s, 'Guarded');
    const svc = await createService(s, p.id, { name: 'guarded', repoFullName: 'acme/guarded', branch: 'main' });
    await s.call('POST', `/api/services/${svc.id}/domains`, { body: { hostname: 'guarded.loop.test' } });
    const idle = await createService(s, p.id, { name: 'idle', repoFullName: 'acme/idle', branch: 'main' });
    await s.call('POST', `/api/services/${idle.id}/domains`, { body: { hostname: 'idle.loop.test' } });

    // What a deployment does once its container answers (the deployment tests do it with Docker).
    const backendPort = await freePort();
    const backend = await tinyServer(backendPort, SERVED.body);
    t.teardown(() => backend.close());
    const released = await releaseService(s.app.commandContext('test'), svc.id, { deploymentId: 'd1', containerName: 'c1', upstreamPort: backendPort, buildMethod: null });
    t.same(await s.app.proxy.sync(released.position), { ok: true, detail: 'caddy configuration loaded' });
    t.same(await probe(proxyPort, 'guarded.loop.test'), SERVED, 'served on its domain');
    t.same(await probe(svc.hostPort), SERVED, 'and on its host port');

    const address = s.app.upstreams!.addressOf(svc.hostPort).host;
    const jump = natRules().split('\n').find((l) => l.startsWith('-A OUTPUT') && l.includes(`-d ${address}/32`));
    if (!jump) throw new Error(`no jump to this installation's chain for ${address} in:\n${natRules()}`);
    const chain = jump.split(' ').at(-1)!;
    const loads = caddyLoads(s.dataDir);
    execFileSync('iptables', ['-t', 'nat', '-D', ...jump.split(' ').slice(1)]);
    execFileSync('iptables', ['-t', 'nat', '-F', chain]);
    t.notMatch(natRules(), `-j ${chain}`, 'no rule leads to the service any more');

    // Caddy listens on the host port on every address, the NAT address too: without the rule, each hop comes
    // back to Caddy. probe() gives up after 5 s, so a loop shows as status 0, not as a hung test.
    t.same(await probe(proxyPort, 'guarded.loop.test'), GUARD, 'on the domain: 502 from the guard');
    t.same(await probe(svc.hostPort), GUARD, 'on the host port: 502 from the guard');
    t.same(await probe(proxyPort, 'idle.loop.test'), { status: 503, body: 'This service has no running deployment yet.\n' }, 'another host still answers');
    t.same(await probe(proxyPort, 'nowhere.loop.test'), { status: 404, body: 'No Slipway service answers for this host.\n' }, 'and unknown hosts too');
    t.equal(caddyLoads(s.dataDir), loads, 'the guard is in the configuration already: no Caddy reload');

    // The server's own check is an hour away; the same check at a shorter interval puts the rules back.
    const stopWatching = s.app.proxy.watchUpstreams(250);
    t.teardown(stopWatching);
    const back = await eventually(() => probe(proxyPort, 'guarded.loop.test'), (r) => r.status === 200, 15_000);
    stopWatching();
    t.same(back, SERVED, 'the repaired rules serve the domain again');
    t.same(await probe(svc.hostPort), SERVED, 'and the host port');
    t.match(natRules(), `--dport ${svc.hostPort} -j DNAT`, 'the rule is back');
    t.equal(caddyLoads(s.dataDir), loads, 'repaired without a Caddy reload');
    // Waits for a repair still under way, so that closing the server removes the rules for good.
    await s.app.proxy.reloadNow();
  });
});
