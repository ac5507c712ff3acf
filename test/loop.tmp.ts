import { createProject, createService } from './helpers/api-suite.js';
import { deployEnv, waitForDeployment, steadyLoad } from './helpers/deploy.js';
import { removeProjectLeftovers, TEST_IMAGES } from './helpers/docker.js';
import { startGitServer } from './helpers/git-server.js';
import { startTestServer } from './helpers/test-server.js';
const git = await startGitServer();
const { env, proxyPort } = await deployEnv({ SLIPWAY_GIT_BASE_URL: git.baseUrl });
const s = await startTestServer(env);
const p = await createProject(s, 'D');
const svc = await createService(s, p.id, { name: 'b', repoFullName: 'acme/b', branch: 'main', internalPort: 8080 });
await s.call('POST', `/api/services/${svc.id}/domains`, { body: { hostname: 'b.test' } });
const SERVER = `import http.server, os
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200); self.end_headers(); self.wfile.write(os.environ.get("VERSION", "?").encode())
    def log_message(self, *a): pass
http.server.ThreadingHTTPServer(("0.0.0.0", int(os.environ["PORT"])), H).serve_forever()
`;
let total = 0, bad = 0;
for (let i = 0; i < 16; i++) {
  git.push('acme/b', { Dockerfile: `FROM ${TEST_IMAGES.python}\nWORKDIR /app\nCOPY . .\nENV VERSION=v${i}\nCMD ["python3", "server.py"]\n`, 'server.py': SERVER });
  const a = steadyLoad(svc.hostPort, 'localhost'); const b = steadyLoad(proxyPort, 'b.test');
  const id = (await s.call('POST', `/api/services/${svc.id}/deployments`)).body.deployment.id;
  await waitForDeployment(s, svc.id, id);
  await new Promise((r) => setTimeout(r, 2500));
  const rs = [...(await a.stop()), ...(await b.stop())];
  if (i === 0) continue;
  total += rs.length; const f = rs.filter((r) => r.status !== 200); bad += f.length;
  if (f.length) console.log(i, JSON.stringify(f.slice(0, 3)));
}
console.log('total', total, 'failed', bad);
await s.close(); await removeProjectLeftovers(p.id); await git.close();
