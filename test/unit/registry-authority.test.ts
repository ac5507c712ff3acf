import { mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import t from 'tap';
import { authorityFingerprint, registryAuthority } from '../../src/cluster/registry-authority.js';

t.test('the registry authority: created once (0600) in the data directory, the same at every later call', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'slipway-registry-ca-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const first = await registryAuthority(dataDir);
  const file = join(dataDir, 'cluster-registry-ca.json');
  t.equal(statSync(file).mode & 0o777, 0o600, 'only Slipway reads its key');
  const cert = new X509Certificate(first.certPem);
  t.ok(cert.ca, 'an authority');
  t.equal(cert.subject, 'CN=Slipway cluster registry', 'named for the registry alone');
  t.same(await registryAuthority(dataDir), first, 'read back, not made again');
  t.equal(authorityFingerprint(first.certPem), authorityFingerprint(first.certPem));
  const other = mkdtempSync(join(tmpdir(), 'slipway-registry-ca-'));
  t.teardown(() => rmSync(other, { recursive: true, force: true }));
  t.not(authorityFingerprint(first.certPem), authorityFingerprint((await registryAuthority(other)).certPem), 'another installation, another authority');
});

t.test('a link in the authority file’s place is not followed', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'slipway-registry-ca-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  writeFileSync(join(dataDir, 'elsewhere.json'), '{}');
  symlinkSync(join(dataDir, 'elsewhere.json'), join(dataDir, 'cluster-registry-ca.json'));
  await t.rejects(registryAuthority(dataDir));
});
