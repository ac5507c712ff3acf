import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { findExecutable, requireCaddyBinary } from '../../src/proxy/caddy-binary.js';

t.test('finds an executable file on PATH or at a path, nothing else', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'slipway-bin-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const [empty, plain, good, folder] = ['empty', 'plain', 'good', 'folder'].map((d) => join(dir, d));
  for (const d of [empty!, plain!, good!, folder!]) mkdirSync(d);
  writeFileSync(join(plain!, 'caddy'), '#!/bin/sh\n');
  chmodSync(join(plain!, 'caddy'), 0o644);
  writeFileSync(join(good!, 'caddy'), '#!/bin/sh\n');
  chmodSync(join(good!, 'caddy'), 0o755);
  mkdirSync(join(folder!, 'caddy'));

  t.equal(findExecutable('caddy', [empty, plain, folder, good].join(':')), join(good!, 'caddy'), 'the first executable file on PATH');
  t.equal(findExecutable('caddy', [empty, plain, folder].join(':')), null, 'a file without x, or a directory, is not one');
  t.equal(findExecutable(join(good!, 'caddy'), ''), join(good!, 'caddy'), 'a path is taken as it is');
  t.equal(findExecutable(join(plain!, 'caddy'), good), null, 'a path is not looked up on PATH');
  t.equal(requireCaddyBinary('caddy', good), join(good!, 'caddy'));
  t.throws(() => requireCaddyBinary('caddy', empty), { message: /no "caddy" executable on PATH[^]*apt-get install caddy/ });
});
