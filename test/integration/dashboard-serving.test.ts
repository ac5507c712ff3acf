import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { dashboardDir } from '../../src/http/routes/dashboard.js';
import { required } from '../helpers/requirements.js';
import { startTestServer } from '../helpers/test-server.js';

const root = dashboardDir();

t.test('the dashboard at /: one page for every page address, hashed files cached for good, the API untouched', { skip: required(existsSync(join(root, 'index.html')) ? false : 'the dashboard is not built (npm test builds it)') }, async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  const index = readFileSync(join(root, 'index.html'), 'utf8');
  for (const path of ['/', '/services/00000000-0000-4000-8000-000000000000', '/history']) {
    const page = await fetch(s.url + path);
    t.equal(page.status, 200, path);
    t.equal(await page.text(), index, `${path}: the one page`);
    t.equal(page.headers.get('cache-control'), 'no-store', 'never cached: a new build is picked up at once');
    t.match(page.headers.get('content-security-policy'), /default-src 'none'; script-src 'self'; style-src 'self'/);
    t.equal(page.headers.get('x-frame-options'), 'DENY');
  }
  const asset = index.match(/src="(\/assets\/[^"]+\.js)"/)![1]!;
  const js = await fetch(s.url + asset);
  t.equal(js.status, 200);
  t.match(js.headers.get('content-type'), /javascript/);
  t.match(js.headers.get('cache-control'), /max-age=31536000.*immutable/, 'hashed: cached for good');
  const missing = await fetch(s.url + '/assets/nothing-12345678.js');
  t.equal(missing.status, 404, 'a missing file is a 404, not the page');
  t.match(await missing.json(), { error: { code: 'not_found' } });
  const traversal = await fetch(s.url + '/assets/..%2f..%2fpackage.json');
  t.not(traversal.status, 200, 'nothing outside the build');
  const api = await fetch(s.url + '/api/nowhere', { headers: { authorization: `Bearer ${s.key}` } });
  t.equal(api.status, 404);
  t.match(await api.json(), { error: { code: 'not_found' } }, 'the API still answers its own 404');
  t.equal((await fetch(s.url + '/', { method: 'POST' })).status, 404, 'only GET and HEAD');
});
