import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { get } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './net.js';
import { required } from './requirements.js';

/** tap's `skip` for tests that need Debian's pebble (Let's Encrypt's test ACME server); fatal under `npm test`, which installs it. */
export function requirePebble(): string | false {
  try {
    execFileSync('pebble', ['-version'], { stdio: 'ignore' });
    return required(false);
  } catch {
    try {
      execFileSync('sh', ['-c', 'command -v pebble'], { stdio: 'ignore' });
      return required(false);
    } catch {
      return required('pebble is not installed (npm test installs it with apt-get)');
    }
  }
}

/** GET over TLS trusting only `ca`; resolves with the body. */
export function getTrusting(url: string, ca: string): Promise<string> {
  return new Promise((resolve, reject) => {
    get(url, { ca }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => (res.statusCode === 200 ? resolve(body) : reject(new Error(`${url}: ${res.statusCode} ${body}`))));
    }).on('error', reject);
  });
}

export interface Pebble {
  directoryUrl: string;
  /** The root its own TLS certificate chains to: what an ACME client must trust to talk to it. */
  directoryRootFile: string;
  /** The root that signs the certificates it issues (new at every start). */
  issuedRootPem(): Promise<string>;
  logs(): string;
  stop(): Promise<void>;
}

/**
 * A pebble on free loopback ports that validates HTTP-01 on `httpPort` (and TLS-ALPN on `tlsPort`) of
 * whatever address `dnsServer` gives a name. Debian ships no certificates for it: a root and a
 * localhost certificate are made here with openssl.
 */
export async function startPebble(options: { dnsServer: string; httpPort: number; tlsPort: number }): Promise<Pebble> {
  const dir = mkdtempSync(join(tmpdir(), 'slipway-pebble-'));
  const file = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'ignore' });
  openssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', file('root.key'), '-out', file('root.pem'), '-days', '2', '-subj', '/CN=Slipway test pebble root');
  openssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', file('key.pem'), '-out', file('cert.csr'), '-subj', '/CN=localhost');
  writeFileSync(file('san.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
  openssl('x509', '-req', '-in', file('cert.csr'), '-CA', file('root.pem'), '-CAkey', file('root.key'), '-CAcreateserial', '-out', file('cert.pem'), '-days', '2', '-extfile', file('san.ext'));
  const [listen, management] = [await freePort(), await freePort()];
  writeFileSync(
    file('pebble.json'),
    JSON.stringify({
      pebble: {
        listenAddress: `127.0.0.1:${listen}`,
        managementListenAddress: `127.0.0.1:${management}`,
        certificate: file('cert.pem'),
        privateKey: file('key.pem'),
        httpPort: options.httpPort,
        tlsPort: options.tlsPort,
        ocspResponderURL: '',
        externalAccountBindingRequired: false,
      },
    }),
  );
  let output = '';
  const child = spawn('pebble', ['-config', file('pebble.json'), '-dnsserver', options.dnsServer], {
    // No artificial delays, and no nonces rejected at random: the tests measure issuance, not retries.
    env: { ...process.env, PEBBLE_VA_NOSLEEP: '1', PEBBLE_WFE_NONCEREJECT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const root = readFileSync(file('root.pem'), 'utf8');
  const directoryUrl = `https://127.0.0.1:${listen}/dir`;
  const stop = async () => {
    if (child.exitCode === null) {
      child.kill();
      await new Promise((resolve) => child.once('exit', resolve));
    }
    rmSync(dir, { recursive: true, force: true });
  };
  for (let i = 0; ; i++) {
    try {
      await getTrusting(directoryUrl, root);
      break;
    } catch (error) {
      if (i > 100 || child.exitCode !== null) {
        await stop();
        throw new Error(`pebble did not start: ${String(error)}\n${output}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    directoryUrl,
    directoryRootFile: file('root.pem'),
    issuedRootPem: () => getTrusting(`https://127.0.0.1:${management}/roots/0`, root),
    logs: () => output,
    stop,
  };
}
