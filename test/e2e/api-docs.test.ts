import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import t from 'tap';
import { required } from '../helpers/requirements.js';
import { startTestServer } from '../helpers/test-server.js';

const chromium = (() => {
  try {
    return execFileSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' }).trim();
  } catch {
    return null;
  }
})();

t.test('/api/docs renders the reference in a real browser, every endpoint listed, nothing fetched from elsewhere', { skip: required(chromium ? false : 'chromium is not installed (npm test installs Debian’s)') }, async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  const document = (await (await fetch(`${s.url}/api/openapi.json`)).json()) as { paths: Record<string, Record<string, { summary: string }>> };
  // Headless Chromium runs the page's scripts, then prints the DOM they built. No network but this machine's.
  // From 150 tags and operations on, swagger-ui draws only those in the window: a window tall enough for all.
  const { stdout: dom } = await promisify(execFile)(
    chromium!,
    ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--window-size=1280,40000', '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1', '--virtual-time-budget=20000', '--dump-dom', `${s.url}/api/docs`],
    { maxBuffer: 64 * 1024 * 1024, timeout: 90_000 },
  );
  t.match(dom, /Slipway management API/, 'the title from the document');
  const operations = Object.entries(document.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ path, method, summary: op.summary })));
  const blocks = [...dom.matchAll(/class="opblock opblock-(get|post|put|patch|delete)/g)].length;
  t.equal(blocks, operations.length, `one block per operation (${operations.length})`);
  const missing = operations.filter((o) => !dom.includes(`data-path="${o.path}"`));
  t.same(missing, [], 'every path is listed');
  t.ok(dom.includes('Create a project'), 'with its summary');
});

t.test('every answer carries the security headers; the page a browser renders a strict Content-Security-Policy', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  const common = { 'x-content-type-options': 'nosniff', 'x-frame-options': 'DENY', 'referrer-policy': 'no-referrer' };
  const answers = {
    'the reference page': await fetch(`${s.url}/api/docs`),
    'its script': await fetch(`${s.url}/api/docs/docs.js`),
    'a JSON answer': await fetch(`${s.url}/api/projects`, { headers: { authorization: `Bearer ${s.key}` } }),
    'an error': await fetch(`${s.url}/api/projects`),
    'an unknown path': await fetch(`${s.url}/nowhere`),
    '/healthz': await fetch(`${s.url}/healthz`),
  };
  for (const [label, r] of Object.entries(answers)) {
    for (const [name, value] of Object.entries(common)) t.equal(r.headers.get(name), value, `${label}: ${name}`);
    const csp = r.headers.get('content-security-policy') ?? '';
    t.match(csp, /frame-ancestors 'none'/, `${label}: may not be framed`);
    t.notMatch(csp, /unsafe-inline|unsafe-eval|\*/, `${label}: no inline code, no wildcard`);
  }
  t.match(answers['the reference page'].headers.get('content-security-policy'), /^default-src 'none'; script-src 'self'; style-src 'self';/, 'the page: its own scripts and styles only');
  t.match(answers['a JSON answer'].headers.get('content-security-policy'), /^default-src 'none';/, 'JSON: nothing at all');
});
