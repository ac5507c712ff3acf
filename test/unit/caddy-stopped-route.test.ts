import t from 'tap';
import { buildCaddyConfig } from '../../src/proxy/caddy-config.js';

t.test('a stopped service: its domains and its host port answer 503 with a page that names nothing, nothing is forwarded', async (t) => {
  const settings = { adminListen: '127.0.0.1:2019', httpListen: [':80'] };
  const config = buildCaddyConfig(settings, [
    { id: 's1', hostnames: ['shop.example.com'], hostPort: 20001, upstream: { host: '127.0.0.1', port: 40001 }, stopped: true },
    { id: 's2', hostnames: ['live.example.com'], hostPort: 20002, upstream: { host: '127.0.0.1', port: 40002 } },
  ]);
  const servers = config.apps.http.servers as Record<string, { routes: { handle: Record<string, unknown>[] }[] }>;
  const byDomain = servers.slipway!.routes[0]!.handle[0]!;
  const byPort = servers['port-20001']!.routes[1]!.handle[0]!;
  for (const handler of [byDomain, byPort]) {
    t.match(handler, { handler: 'static_response', status_code: 503, headers: { 'Content-Type': ['text/html; charset=utf-8'] } });
    t.match(handler.body, '<h1>This site is stopped</h1>');
    t.notMatch(handler.body, /40001|127\.0\.0\.1|s1|shop/i, 'nothing of what it is inside Slipway, nor where it ran');
  }
  t.match(servers.slipway!.routes[1]!.handle[0], { handler: 'reverse_proxy' }, 'other services are forwarded as before');
  t.notMatch(JSON.stringify(config), /40001/, 'the stopped container is dialled by no route');
});
