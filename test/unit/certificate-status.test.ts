import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { createAuthority, issueServerCertificate } from '../../src/engines/tls-authority.js';
import { CertificateStatusReader, issuerKey } from '../../src/proxy/certificate-status.js';

const DIRECTORY = 'https://127.0.0.1:14000/dir';

t.equal(issuerKey(DIRECTORY), '127.0.0.1-14000-dir', "Caddy's folder for a pebble directory");
t.equal(issuerKey('https://acme-v02.api.letsencrypt.org/directory'), 'acme-v02.api.letsencrypt.org-directory');
t.equal(issuerKey('https://ca.example.com/acme/acme/directory'), 'ca.example.com-acme-acme-directory');

const work = mkdtempSync(join(tmpdir(), 'slipway-certs-'));
t.teardown(() => rmSync(work, { recursive: true, force: true }));
const log = join(work, 'caddy.log');
const line = (entry: Record<string, unknown>) => appendFileSync(log, JSON.stringify({ level: 'info', ts: Date.now() / 1000, ...entry }) + '\n');

async function store(issuer: string, hostname: string) {
  const authority = await createAuthority('Pebble Intermediate CA 1a2b3c');
  const pair = await issueServerCertificate(authority, { dnsNames: [hostname], ipAddresses: [] });
  const dir = join(work, 'data', 'caddy', 'certificates', issuer, hostname);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${hostname}.crt`), pair.certPem);
}

t.test('storage says active, the log says failed, otherwise pending', async (t) => {
  const reader = new CertificateStatusReader(work, DIRECTORY);
  t.same([...(await reader.read(['a.example.test'])).values()], [{ status: 'pending', reason: null, notAfter: null, issuer: null }], 'no log, no storage');

  line({ logger: 'http.acme_client', msg: 'challenge failed', identifier: 'a.example.test', challenge_type: 'http-01', error: 'Get "http://a.example.test/…": could not resolve URL' });
  line({ level: 'error', logger: 'tls.obtain', msg: 'could not get certificate from issuer', identifier: 'a.example.test', error: 'no solvers available for remaining challenges' });
  line({ level: 'error', logger: 'tls.obtain', msg: 'could not get certificate from issuer', identifier: 'b.example.test', error: 'HTTP 429 rateLimited' });
  appendFileSync(log, '{"level":"error","msg":"could not get certificate from iss'); // a line Caddy is still writing
  let states = await reader.read(['a.example.test', 'b.example.test', 'c.example.test']);
  t.same(states.get('a.example.test'), { status: 'failed', reason: 'the http-01 challenge failed: Get "http://a.example.test/…": could not resolve URL', notAfter: null, issuer: null }, 'the challenge error is the reason');
  t.match(states.get('b.example.test'), { status: 'failed', reason: 'HTTP 429 rateLimited' });
  t.match(states.get('c.example.test'), { status: 'pending' });

  appendFileSync(log, 'uer","identifier":"c.example.test","error":"late"}\n');
  line({ logger: 'tls.obtain', msg: 'certificate obtained successfully', identifier: 'b.example.test' });
  await store('127.0.0.1-14000-dir', 'b.example.test');
  await store('other-ca-directory', 'a.example.test');
  states = await reader.read(['a.example.test', 'b.example.test', 'c.example.test']);
  t.match(states.get('b.example.test'), { status: 'active', reason: null, notAfter: /^\d{4}-/, issuer: 'Pebble Intermediate CA 1a2b3c' });
  t.match(states.get('a.example.test'), { status: 'failed' }, 'a certificate of another issuer does not count');
  t.match(states.get('c.example.test'), { status: 'failed', reason: 'late' }, 'the line finished later is read whole');

  writeFileSync(log, '');
  line({ level: 'error', logger: 'tls.obtain', msg: 'could not get certificate from issuer', identifier: 'd.example.test', error: 'after rotation' });
  t.match((await reader.read(['d.example.test'])).get('d.example.test'), { status: 'failed', reason: 'after rotation' }, 'a truncated log is read from its start');
});
