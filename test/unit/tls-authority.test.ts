import { spawnSync } from 'node:child_process';
import { X509Certificate, createPrivateKey, createPublicKey } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import t from 'tap';
import {
  AUTHORITY_VALID_DAYS,
  SERVER_VALID_DAYS,
  certificateExpiresAt,
  certificateNames,
  createAuthority,
  issueServerCertificate,
} from '../../src/engines/tls-authority.js';
import { required } from '../helpers/requirements.js';

const DAY_MS = 86_400_000;
const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';
const names = { dnsNames: ['db.example.test', 'pg-main', 'localhost'], ipAddresses: ['127.0.0.1', '::1'] };

const ca = await createAuthority('Slipway test authority');
const otherCa = await createAuthority('Some other authority');
const leaf = await issueServerCertificate(ca, names);

function spki(pem: string): Buffer {
  return createPublicKey(pem).export({ type: 'spki', format: 'der' });
}

function openssl(args: string[]): { status: number | null; out: string } {
  const run = spawnSync('openssl', args, { encoding: 'utf8' });
  return { status: run.status, out: `${run.stdout ?? ''}${run.stderr ?? ''}` };
}

const opensslMissing = spawnSync('openssl', ['version']).status === 0 ? false : 'no openssl on PATH';

t.test('the authority is a self-signed CA that may only sign leaves', async (t) => {
  const cert = new X509Certificate(ca.certPem);
  t.ok(cert.ca, 'basicConstraints CA:true');
  t.equal(cert.subject, 'CN=Slipway test authority');
  t.equal(cert.issuer, cert.subject, 'self-issued');
  t.ok(cert.verify(cert.publicKey), 'self-signed');
  t.notOk(cert.verify(new X509Certificate(otherCa.certPem).publicKey), 'not signed by another key');
  t.equal(cert.publicKey.asymmetricKeyType, 'ec');
  t.equal(cert.publicKey.asymmetricKeyDetails?.namedCurve, 'prime256v1');
  t.match(ca.keyPem, /^-----BEGIN PRIVATE KEY-----\n[^]+\n-----END PRIVATE KEY-----\n?$/, 'PKCS#8 PEM');
  t.ok(spki(ca.keyPem).equals(spki(ca.certPem)), 'the key is the certificate’s');

  const lifetime = certificateExpiresAt(ca.certPem).getTime() - new Date(cert.validFrom).getTime();
  t.equal(lifetime, AUTHORITY_VALID_DAYS * DAY_MS, 'ten years');
  t.ok(new Date(cert.validFrom).getTime() <= Date.now(), 'valid already');
  t.equal(certificateExpiresAt(ca.certPem).getTime(), new Date(cert.validTo).getTime());

  const again = await createAuthority('Slipway test authority');
  t.not(new X509Certificate(again.certPem).serialNumber, cert.serialNumber, 'random serials');
  t.notOk(spki(again.keyPem).equals(spki(ca.keyPem)), 'a new key each time');
  await t.rejects(createAuthority('  '), /common name/);
});

t.test('the server certificate chains to the authority and names the service', async (t) => {
  const cert = new X509Certificate(leaf.certPem);
  const authority = new X509Certificate(ca.certPem);
  t.ok(cert.verify(authority.publicKey), 'signed by the authority’s key');
  t.ok(cert.checkIssued(authority), 'issued by the authority');
  t.notOk(cert.verify(new X509Certificate(otherCa.certPem).publicKey), 'not by another authority’s key');
  t.notOk(cert.checkIssued(new X509Certificate(otherCa.certPem)), 'nor issued by it');
  t.notOk(cert.ca, 'not a CA');
  t.equal(cert.subject, 'CN=db.example.test', 'CN is the first DNS name');
  t.equal(cert.subjectAltName, 'DNS:db.example.test, DNS:pg-main, DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1');
  t.same(cert.keyUsage, [SERVER_AUTH], 'extendedKeyUsage serverAuth only');
  t.equal(cert.checkHost('db.example.test'), 'db.example.test');
  t.equal(cert.checkHost('pg-main'), 'pg-main');
  t.equal(cert.checkHost('other.example.test'), undefined);
  t.equal(cert.checkIP('127.0.0.1'), '127.0.0.1');
  t.equal(cert.checkIP('::1'), '::1');
  t.equal(cert.checkIP('10.0.0.1'), undefined);

  t.ok(spki(leaf.keyPem).equals(spki(leaf.certPem)), 'its key is its own');
  t.notOk(spki(leaf.keyPem).equals(spki(ca.keyPem)), 'not the authority’s');
  t.match(leaf.keyPem, /^-----BEGIN PRIVATE KEY-----\n/);
  t.equal(createPrivateKey(leaf.keyPem).asymmetricKeyType, 'ec');

  const from = new Date(cert.validFrom).getTime();
  t.equal(certificateExpiresAt(leaf.certPem).getTime() - from, SERVER_VALID_DAYS * DAY_MS, '825 days by default');
  t.ok(from <= Date.now());
  t.same(certificateNames(leaf.certPem), names);

  const short = await issueServerCertificate(ca, { dnsNames: ['a.example.test'], ipAddresses: [] }, 30);
  const shortCert = new X509Certificate(short.certPem);
  t.equal(certificateExpiresAt(short.certPem).getTime() - new Date(shortCert.validFrom).getTime(), 30 * DAY_MS, 'validDays');
  t.not(shortCert.serialNumber, cert.serialNumber, 'random serials');
  t.notOk(spki(short.keyPem).equals(spki(leaf.keyPem)), 'a new key per certificate');
  t.equal(shortCert.subjectAltName, 'DNS:a.example.test', 'no IPs when none are given');

  const long = await issueServerCertificate(ca, names, 100 * 365);
  t.equal(certificateExpiresAt(long.certPem).getTime(), certificateExpiresAt(ca.certPem).getTime(), 'never outlives the authority');
});

t.test('names are normalised, and what cannot go into a certificate is refused', async (t) => {
  const cert = await issueServerCertificate(ca, { dnsNames: ['DB.Example.Test.', 'db.example.test', '*.apps.example.test'], ipAddresses: ['10.0.0.7', '10.0.0.7'] });
  t.same(certificateNames(cert.certPem), { dnsNames: ['db.example.test', '*.apps.example.test'], ipAddresses: ['10.0.0.7'] });
  t.equal(new X509Certificate(cert.certPem).checkHost('x.apps.example.test'), '*.apps.example.test', 'the wildcard covers a subdomain');

  await t.rejects(issueServerCertificate(ca, { dnsNames: [], ipAddresses: ['127.0.0.1'] }), /at least one DNS name/);
  await t.rejects(issueServerCertificate(ca, { dnsNames: ['127.0.0.1'], ipAddresses: [] }), /pass it in ipAddresses/);
  await t.rejects(issueServerCertificate(ca, { dnsNames: ['db example'], ipAddresses: [] }), /not a DNS name/);
  await t.rejects(issueServerCertificate(ca, { dnsNames: ['dé.example'], ipAddresses: [] }), /not a DNS name/);
  await t.rejects(issueServerCertificate(ca, { dnsNames: ['a'], ipAddresses: ['999.1.1.1'] }), /not an IPv4 or IPv6 address/);
  await t.rejects(issueServerCertificate(ca, names, 0), /at least 1/);
  await t.rejects(issueServerCertificate(ca, names, 1.5), /whole number/);
  await t.rejects(issueServerCertificate(leaf, names), /not a certificate authority/, 'a leaf cannot sign');
  await t.rejects(issueServerCertificate({ certPem: ca.certPem, keyPem: otherCa.keyPem }, names), /does not belong/, 'a mismatched key is caught');
});

t.test('a first name longer than a common name allows is carried by a critical subjectAltName alone', async (t) => {
  const hostname = `${'a'.repeat(60)}.${'b'.repeat(20)}.example.test`;
  const cert = await issueServerCertificate(ca, { dnsNames: [hostname], ipAddresses: [] });
  const parsed = new X509Certificate(cert.certPem);
  t.notOk(parsed.subject, 'an empty subject, no common name');
  t.equal(parsed.checkHost(hostname), hostname);
  t.ok(parsed.checkIssued(new X509Certificate(ca.certPem)) && parsed.verify(new X509Certificate(ca.certPem).publicKey));
});

interface Outcome {
  authorized: boolean;
  code: string | null;
  subject: string | null;
}

/** A TLS client's view of a handshake with `server`: authorized, or the error code it was refused with. */
function handshake(port: number, options: tls.ConnectionOptions): Promise<Outcome> {
  return new Promise((resolve) => {
    const socket = tls.connect({ host: '127.0.0.1', port, ...options });
    socket.once('secureConnect', () => {
      const cn: string | string[] | undefined = socket.getPeerCertificate().subject?.CN;
      const outcome: Outcome = { authorized: socket.authorized, code: null, subject: typeof cn === 'string' ? cn : null };
      socket.end();
      resolve(outcome);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => {
      socket.destroy();
      resolve({ authorized: false, code: err.code ?? err.message, subject: null });
    });
  });
}

t.test('a real TLS handshake: trusted for its names, refused otherwise', async (t) => {
  const server = tls.createServer({ key: leaf.keyPem, cert: leaf.certPem }, (socket) => {
    socket.on('error', () => {});
    socket.end();
  });
  server.on('tlsClientError', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as AddressInfo;

  t.same(await handshake(port, { ca: ca.certPem, servername: 'db.example.test' }), { authorized: true, code: null, subject: 'db.example.test' }, 'verify-full on the public hostname');
  t.same(await handshake(port, { ca: ca.certPem, servername: 'pg-main' }), { authorized: true, code: null, subject: 'db.example.test' }, 'the in-network name');
  t.same(await handshake(port, { ca: ca.certPem }), { authorized: true, code: null, subject: 'db.example.test' }, 'dialled by IP: the IP SAN matches');

  const wrongName = await handshake(port, { ca: ca.certPem, servername: 'other.example.test' });
  t.equal(wrongName.code, 'ERR_TLS_CERT_ALTNAME_INVALID', 'a name outside the SAN is refused');
  const wrongCa = await handshake(port, { ca: otherCa.certPem, servername: 'db.example.test' });
  t.equal(wrongCa.code, 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'a client trusting another authority refuses it');
  t.notOk(wrongCa.authorized);
  const noCa = await handshake(port, { servername: 'db.example.test' });
  t.equal(noCa.code, 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'the public roots do not vouch for it');

  // verify-ca: the chain is checked, the name is not.
  const verifyCa = await handshake(port, { ca: ca.certPem, servername: 'other.example.test', checkServerIdentity: () => undefined });
  t.ok(verifyCa.authorized, 'verify-ca accepts it under any name');
  const verifyCaWrong = await handshake(port, { ca: otherCa.certPem, servername: 'other.example.test', checkServerIdentity: () => undefined });
  t.equal(verifyCaWrong.code, 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'but not from another authority');
});

t.test('openssl agrees: the chain verifies and the key loads', { skip: required(opensslMissing) }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'slipway-tls-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, content: string): string => {
    const path = join(dir, name);
    writeFileSync(path, content, { mode: 0o600 });
    return path;
  };
  const caPem = file('ca.pem', ca.certPem);
  const otherCaPem = file('other-ca.pem', otherCa.certPem);
  const leafPem = file('leaf.pem', leaf.certPem);
  const keyPem = file('key.pem', leaf.keyPem);
  const caKeyPem = file('ca-key.pem', ca.keyPem);

  const verify = openssl(['verify', '-CAfile', caPem, leafPem]);
  t.equal(verify.status, 0, verify.out);
  t.match(verify.out, `${leafPem}: OK`);
  const strict = openssl(['verify', '-x509_strict', '-purpose', 'sslserver', '-verify_hostname', 'db.example.test', '-verify_ip', '::1', '-CAfile', caPem, leafPem]);
  t.equal(strict.status, 0, `strict RFC 5280 checks, TLS server purpose, name and IP: ${strict.out}`);
  const wrongHost = openssl(['verify', '-verify_hostname', 'other.example.test', '-CAfile', caPem, leafPem]);
  t.not(wrongHost.status, 0, 'openssl refuses a name outside the SAN');
  const other = openssl(['verify', '-CAfile', otherCaPem, leafPem]);
  t.not(other.status, 0, 'and a chain to another authority');
  t.match(other.out, /unable to get local issuer certificate/);
  const notClient = openssl(['verify', '-purpose', 'sslclient', '-CAfile', caPem, leafPem]);
  t.not(notClient.status, 0, 'the certificate is for servers only');

  for (const [what, path] of [['server key', keyPem], ['authority key', caKeyPem]] as const) {
    const load = openssl(['pkey', '-in', path, '-noout']);
    t.equal(load.status, 0, `openssl loads the ${what}: ${load.out}`);
  }
  const match = openssl(['x509', '-in', leafPem, '-noout', '-pubkey']);
  const fromKey = openssl(['pkey', '-in', keyPem, '-pubout']);
  t.equal(match.out, fromKey.out, 'the key is the certificate’s');

  const caText = openssl(['x509', '-in', caPem, '-noout', '-text']).out;
  t.match(caText, /X509v3 Basic Constraints: critical\s+CA:TRUE, pathlen:0/);
  t.match(caText, /X509v3 Key Usage: critical\s+Certificate Sign, CRL Sign\n/);
  const ski = /X509v3 Subject Key Identifier:\s+([0-9A-F:]+)/.exec(caText)?.[1];
  t.ok(ski, 'the authority has a subjectKeyIdentifier');
  t.match(caText, /Signature Algorithm: ecdsa-with-SHA256/);

  const leafText = openssl(['x509', '-in', leafPem, '-noout', '-text']).out;
  t.match(leafText, /X509v3 Basic Constraints: critical\s+CA:FALSE/);
  t.match(leafText, /X509v3 Key Usage: critical\s+Digital Signature\n/);
  t.match(leafText, /X509v3 Extended Key Usage:\s+TLS Web Server Authentication\n/);
  t.match(leafText, /X509v3 Subject Key Identifier:\s+[0-9A-F:]+/);
  const aki = /X509v3 Authority Key Identifier:\s+(?:keyid:)?([0-9A-F:]+)/.exec(leafText)?.[1];
  t.equal(aki, ski, 'authorityKeyIdentifier is the authority’s subjectKeyIdentifier');

  const check = openssl(['x509', '-in', leafPem, '-noout', '-checkend', String(SERVER_VALID_DAYS * 86_400 - 3 * 3600)]);
  t.equal(check.status, 0, 'valid for about 825 days from now');
});
