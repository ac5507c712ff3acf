import { startGitServer } from './helpers/git-server.js';
import { startTestServer } from './helpers/test-server.js';
import { freePort, getVia } from './helpers/net.js';

const git = await startGitServer({ 'acme/web': 'tok-secret-123' });
git.push('acme/web', {
  Dockerfile: 'FROM slipway/runtime-python:bookworm\nWORKDIR /app\nCOPY . .\nCMD ["python3", "server.py"]\n',
  'server.py': `import http.server, os\nclass H(http.server.BaseHTTPRequestHandler):\n    def do_GET(self):\n        self.send_response(200); self.end_headers(); self.wfile.write(os.environ.get('GREETING','none').encode())\nprint('listening', flush=True)\nhttp.server.HTTPServer(('0.0.0.0', int(os.environ['PORT'])), H).serve_forever()\n`,
});
const proxyPort = await freePort();
const s = await startTestServer({
  SLIPWAY_GIT_BASE_URL: git.baseUrl, SLIPWAY_PROXY: 'caddy', SLIPWAY_PROXY_HTTP_PORT: String(proxyPort),
  SLIPWAY_CADDY_ADMIN_LISTEN: `127.0.0.1:${await freePort()}`, SLIPWAY_HOST_PORT_RANGE: '31000-31999',
});
const p = (await s.call('POST', '/api/projects', { body: { name: 'Smoke', description: '' } })).body.project;
const svc = (await s.call('POST', `/api/projects/${p.id}/services`, { body: { name: 'web', repoFullName: 'acme/web', branch: 'main', internalPort: 8080, env: [{ key: 'GREETING', value: 'hello-world-secret' }], gitToken: 'tok-secret-123' } })).body;
console.log(JSON.stringify(svc).slice(0, 300));
const id = svc.service.id;
await s.call('POST', `/api/services/${id}/domains`, { body: { hostname: 'web.smoke.test' } });
const t0 = Date.now();
const d = (await s.call('POST', `/api/services/${id}/deployments`)).body;
console.log(d);
for (;;) {
  const list = (await s.call('GET', `/api/services/${id}/deployments`)).body.deployments;
  if (['succeeded', 'failed', 'aborted'].includes(list[0].status)) { console.log(list[0], Date.now() - t0, 'ms'); break; }
  await new Promise((r) => setTimeout(r, 200));
}
const logs = (await s.call('GET', `/api/deployments/${d.deployment.id}/logs`)).body.logs;
for (const l of logs) console.log(l.id, l.stream, l.line);
const ov = (await s.call('GET', `/api/services/${id}/overview`)).body;
console.log(ov.service.status, ov.service.reachable, ov.service.detectedBuildMethod, ov.service.lastDeployedAt, ov.service.hostPort);
console.log(await getVia(ov.service.hostPort, 'localhost').catch((e) => String(e)));
console.log(await getVia(proxyPort, 'web.smoke.test').catch((e) => String(e)));
console.log(git.requests.map((r) => r.url + ' ' + (r.authorization ? 'auth' : 'noauth')).join('\n'));
await s.call('DELETE', `/api/services/${id}`);
await new Promise((r) => setTimeout(r, 2000));
await s.close();
await git.close();
