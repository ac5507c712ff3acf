import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { registryAuth, trustRegistryAuthority } from '../../src/cluster/registry.js';

t.test('registryAuth: the authconfig the engine sends to the registry', async (t) => {
  t.same(registryAuth({ address: '10.0.0.5:5000', username: 'slipway', password: 's3cret' }), { username: 'slipway', password: 's3cret', serveraddress: '10.0.0.5:5000' });
});

t.test('trustRegistryAuthority: <certsDir>/<host:port>/ca.crt, readable by the engine, replaced on a second call', async (t) => {
  const certsDir = mkdtempSync(join(tmpdir(), 'slipway-certs-'));
  t.teardown(() => rmSync(certsDir, { recursive: true, force: true }));
  trustRegistryAuthority('10.0.0.5:5000', 'first CA\n', certsDir);
  trustRegistryAuthority('10.0.0.5:5000', 'second CA\n', certsDir);
  const file = join(certsDir, '10.0.0.5:5000', 'ca.crt');
  t.equal(readFileSync(file, 'utf8'), 'second CA\n');
  t.equal(statSync(file).mode & 0o777, 0o644);
});
