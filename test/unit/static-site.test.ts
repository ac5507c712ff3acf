import t from 'tap';
import { detect, staticSiteDir, type PackInput } from '../../src/build/packbuilder/detect.js';
import { effectiveHealthCheck, parseExpectStatus, statusAccepted } from '../../commands/service/health-check.js';
import { packDockerfile } from '../../src/build/packbuilder/dockerfile.js';

const images = { node: 'n', python: 'p', go: 'g', run: 'r', static: 's' };
const input = (paths: string[], extra: Partial<PackInput> = {}): PackInput => ({
  files: { has: (n: string) => paths.includes(n), read: (n: string) => (paths.includes(n) ? '' : null) },
  installCommand: null,
  buildCommand: null,
  startCommand: null,
  runtimeMode: 'static',
  internalPort: 8080,
  images,
  ...extra,
});

t.test('a static site without a build is served from where its index.html is', async (t) => {
  t.equal(staticSiteDir(input(['index.html', 'public/index.html']).files), '.', 'the root first');
  t.equal(staticSiteDir(input(['public/index.html', 'public/app.css']).files), 'public');
  t.equal(staticSiteDir(input(['_site/index.html', 'public/index.html']).files), 'public', 'the output folders in the README order');
  t.equal(staticSiteDir(input(['docs/index.html']).files), null);

  const fromPublic = detect(input(['public/index.html']));
  t.match(fromPublic, { language: 'static', build: null, siteDir: 'public', notes: ['static site', 'served from public/'] });
  t.match(packDockerfile(fromPublic, images, 8080), /^FROM s\nCOPY public \/srv\/site\n/);
  t.match(detect(input(['docs/index.html'])), { siteDir: '.', notes: ['static site', /no index\.html at the root or in dist, build, out, public, _site/] });
  t.match(detect(input(['dist/index.html'], { runtimeMode: 'web' })), { language: 'static', siteDir: 'dist' }, 'detected as a static site in web mode too');
  const built = detect(input(['package.json'], { files: { has: (n) => n === 'package.json', read: () => '{"scripts":{"build":"b"}}' } }));
  t.equal(built.siteDir, undefined, 'a built site is served from its build output');
});

t.test('a static site is ready on 2xx or 3xx at /, not on 404', async (t) => {
  const { check } = effectiveHealthCheck({ kind: 'source', runtimeMode: 'static', healthCheck: undefined });
  const ranges = parseExpectStatus(check?.type === 'http' ? check.expectStatus : '')!;
  t.same([200, 204, 301, 304, 404, 403, 500].map((status) => statusAccepted(ranges, status)), [true, true, true, true, false, false, false]);
  t.match(effectiveHealthCheck({ kind: 'source', runtimeMode: 'web', healthCheck: undefined }).check, { expectStatus: '100-499' }, 'an app: any answer below 500');
});
