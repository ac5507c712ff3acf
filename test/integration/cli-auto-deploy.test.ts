import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { createProject, createService } from '../helpers/api-suite.js';
import { cliArgs, root } from '../helpers/cli-process.js';
import { startTestServer } from '../helpers/test-server.js';
import { deliver, githubPush } from '../helpers/webhooks.js';

const s = await startTestServer();
t.teardown(() => s.close());
const env = { ...process.env, XDG_CONFIG_HOME: mkdtempSync(join(tmpdir(), 'slipway-cli-config-')), SLIPWAY_URL: s.url, SLIPWAY_KEY: s.key };

function slipway(...args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [...cliArgs, ...args], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  return new Promise((resolve) => child.once('exit', (status) => resolve({ status, stdout, stderr })));
}

t.test('the CLI sets up auto-deploy, prints the secret once, and lists deliveries', async (t) => {
  const p = await createProject(s, 'Cli Hooks');
  const svc = await createService(s, p.id, { name: 'site', repoFullName: 'acme/site', branch: 'main', internalPort: 8080, env: [] });
  const off = await slipway('auto-deploy', 'site');
  t.equal(off.status, 0, off.stderr);
  t.match(off.stdout, /auto-deploy is off for site/);

  const setup = await slipway('auto-deploy', 'site', '--provider', 'github', '--tags', 'v*', '--ignore', 'docs/**', '--ignore', '*.md');
  t.equal(setup.status, 0, setup.stderr);
  t.match(setup.stdout, /^on: github pushes to main \(the service’s branch\), and tags matching v\*$/m);
  t.match(setup.stdout, new RegExp(`webhook URL: ${s.url}/api/hooks/${svc.id}/github`));
  t.match(setup.stdout, /not when touching only: docs\/\*\*, \*\.md/);
  const secret = /secret \(shown once; give it to the Git host\): ([0-9a-f]{64})/.exec(setup.stdout)?.[1];
  t.ok(secret, 'the secret, once');

  const shown = await slipway('auto-deploy', 'site', '--json');
  t.notOk(JSON.parse(shown.stdout).autoDeploy.secret, 'not again');
  const disabled = await slipway('auto-deploy', 'site', '--disable');
  t.match(JSON.parse((await slipway('auto-deploy', 'site', '--json')).stdout).autoDeploy, { enabled: false, provider: 'github', tagPattern: 'v*', ignorePaths: ['docs/**', '*.md'] }, `kept (${disabled.stderr})`);
  t.match((await slipway('auto-deploy', 'site', '--provider', 'svn')).stderr, /--provider must be one of github, gitlab, gitea, bitbucket, generic/);

  await deliver(s.url, `/api/hooks/${svc.id}/github`, githubPush(secret!, 'refs/heads/main', 'a'.repeat(40), [{ id: 'b'.repeat(40), message: 'x' }], 'cli-delivery'));
  const deliveries = await slipway('webhook-deliveries', 'site');
  t.equal(deliveries.status, 0, deliveries.stderr);
  t.match(deliveries.stdout, /^WHEN\s+PROVIDER\s+EVENT\s+VERDICT\s+COMMIT\s+DEPLOYMENT\s+DELIVERY\n.*github\s+push\s+skipped:disabled\s+bbbbbbb\s+cli-delivery/);

  const rotated = await slipway('auto-deploy', 'site', '--rotate-secret');
  const next = /secret \(shown once; give it to the Git host\): ([0-9a-f]{64})/.exec(rotated.stdout)?.[1];
  t.ok(next && next !== secret, 'a new secret');
});
