import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const DIR_VARIABLE = 'SLIPWAY_TEST_CA_DIR';

export interface TestCertificate {
  key: string;
  cert: string;
}

/** A throwaway root and a certificate for `localhost` / `127.0.0.1` it signs, made with openssl. */
function makeCertificates(): string {
  const dir = mkdtempSync(join(tmpdir(), 'slipway-test-ca-'));
  const file = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'ignore' });
  openssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', file('root.key'), '-out', file('root.pem'), '-days', '2', '-subj', '/CN=Slipway test root');
  openssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', file('key.pem'), '-out', file('cert.csr'), '-subj', '/CN=localhost');
  writeFileSync(file('san.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
  openssl('x509', '-req', '-in', file('cert.csr'), '-CA', file('root.pem'), '-CAkey', file('root.key'), '-CAcreateserial', '-out', file('cert.pem'), '-days', '2', '-extfile', file('san.ext'));
  return dir;
}

/**
 * Node reads `NODE_EXTRA_CA_CERTS` only when it starts, and Slipway's clients verify certificates as in production.
 * Called first in a test file: in the first process it makes a root, runs the same file again in a Node that
 * trusts it (its TAP output is this process's) and answers null; in that second process it answers the
 * certificate to serve. The file must not load `tap` before this answers.
 */
export async function trustedTestCertificate(testFile: string): Promise<TestCertificate | null> {
  const dir = process.env[DIR_VARIABLE];
  if (dir && process.env.NODE_EXTRA_CA_CERTS === join(dir, 'root.pem')) {
    return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  }
  const made = makeCertificates();
  const child = spawn(process.execPath, [...process.execArgv, testFile], {
    stdio: 'inherit',
    env: { ...process.env, NODE_EXTRA_CA_CERTS: join(made, 'root.pem'), [DIR_VARIABLE]: made },
  });
  // The runner's timeout ends this process: the run it started ends with it.
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  process.once('SIGTERM', forward).once('SIGINT', forward);
  process.exitCode = await new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? 1)));
  return null;
}
