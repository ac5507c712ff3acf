import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import t from 'tap';
import { dashboardDir } from '../../src/http/routes/dashboard.js';
import { required } from '../helpers/requirements.js';

const root = dashboardDir();
const built = existsSync(join(root, 'index.html'));

t.test('the first screen’s JavaScript stays under 100 kB gzipped, content-hashed, with nothing inline', { skip: required(built ? false : `no dashboard in ${root} (npm test builds it: npm run build:dashboard)`) }, async (t) => {
  const html = readFileSync(join(root, 'index.html'), 'utf8');
  const scripts = [...html.matchAll(/<script\b[^>]*\bsrc="([^"]+)"[^>]*><\/script>/g)].map((m) => m[1]!);
  const styles = [...html.matchAll(/<link\b[^>]*rel="stylesheet"[^>]*href="([^"]+)"/g)].map((m) => m[1]!);
  t.ok(scripts.length >= 1, 'the page loads its script');
  t.notMatch(html.replace(/<script\b[^>]*\bsrc="[^"]+"[^>]*><\/script>/g, ''), /<script|<style|\sstyle=|\son[a-z]+=/i, 'no inline script, style or handler (the CSP would refuse them)');
  for (const file of [...scripts, ...styles]) t.match(file, /^\/assets\/[\w-]+-[\w-]{8}\.(js|css)$/, `${file} is content-hashed`);
  const gzipped = scripts.reduce((sum, file) => sum + gzipSync(readFileSync(join(root, file))).length, 0);
  t.ok(gzipped < 100 * 1024, `first-screen JavaScript: ${(gzipped / 1024).toFixed(1)} kB gzipped (budget 100 kB)`);
});
