import { X509Certificate } from 'node:crypto';
import { open, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';

export interface CertificateStatus {
  status: 'pending' | 'active' | 'failed';
  reason: string | null;
  notAfter: string | null;
  issuer: string | null;
}

/** certmagic's storage-safe form of a key (StorageKeys.Safe). */
function safe(key: string): string {
  return key.trim().toLowerCase().replaceAll(' ', '_').replaceAll('+', '_plus_').replaceAll('*', 'wildcard_').replaceAll(':', '-').replaceAll('..', '');
}

/** The folder Caddy's ACME issuer keeps its certificates under: the directory URL's host and path (certmagic's issuerKey). */
export function issuerKey(directoryUrl: string): string {
  const url = new URL(directoryUrl);
  const path = url.pathname.replaceAll('/', '-').replaceAll('\\', '-').replace(/^-+|-+$/g, '');
  return safe(path ? `${url.host}-${path}` : url.host);
}

interface LogEntry {
  msg?: string;
  identifier?: string;
  error?: string;
  challenge_type?: string;
}

/** The log is read this much at a time; on a first read, only its last part (older outcomes are superseded). */
const CHUNK = 4 * 1024 * 1024;
const FAILED = 'could not get certificate from issuer';
/** Logged just before FAILED with what the CA saw (an unresolvable name, a refused connection). */
const CHALLENGE_FAILED = 'challenge failed';
const OBTAINED = 'certificate obtained successfully';

/**
 * Each hostname's certificate as Caddy itself has it: a valid certificate from the configured issuer in its
 * storage is `active`; otherwise the last word of its log on that name decides (`failed` with Caddy's error,
 * or nothing yet: `pending`). The log is read incrementally; a truncated or rotated log is read again.
 */
export class CertificateStatusReader {
  private offset = 0;
  private partial = '';
  /** The last outcome Caddy logged per name, failure reason or null for a success. */
  private readonly lastOutcome = new Map<string, string | null>();
  private readonly lastChallengeError = new Map<string, string>();
  private readonly storage: string;
  private readonly logPath: string;

  /** `caddyWorkDir`: where Slipway runs Caddy (its `caddy.log`, and `data` as `XDG_DATA_HOME`). */
  constructor(caddyWorkDir: string, acmeDirectoryUrl: string) {
    this.storage = join(caddyWorkDir, 'data', 'caddy', 'certificates', issuerKey(acmeDirectoryUrl));
    this.logPath = join(caddyWorkDir, 'caddy.log');
  }

  async read(hostnames: readonly string[]): Promise<Map<string, CertificateStatus>> {
    await this.followLog();
    const states = new Map<string, CertificateStatus>();
    for (const hostname of hostnames) states.set(hostname, await this.statusOf(hostname));
    return states;
  }

  private async statusOf(hostname: string): Promise<CertificateStatus> {
    const stored = await this.storedCertificate(hostname);
    if (stored) return { status: 'active', reason: null, ...stored };
    const failure = this.lastOutcome.get(hostname);
    return failure ? { status: 'failed', reason: failure, notAfter: null, issuer: null } : { status: 'pending', reason: null, notAfter: null, issuer: null };
  }

  private async storedCertificate(hostname: string): Promise<{ notAfter: string; issuer: string } | null> {
    const name = safe(hostname);
    let pem: string;
    try {
      pem = await readFile(join(this.storage, name, `${name}.crt`), 'utf8');
    } catch {
      return null;
    }
    try {
      const certificate = new X509Certificate(pem);
      const notAfter = new Date(certificate.validTo);
      if (notAfter.getTime() <= Date.now() || !certificate.checkHost(hostname)) return null;
      const issuer = /(?:^|\n)CN=([^\n]+)/.exec(certificate.issuer)?.[1] ?? certificate.issuer;
      return { notAfter: notAfter.toISOString(), issuer };
    } catch {
      return null;
    }
  }

  private async followLog(): Promise<void> {
    let size: number;
    try {
      size = (await stat(this.logPath)).size;
    } catch {
      return;
    }
    if (size < this.offset) {
      this.offset = 0;
      this.partial = '';
    }
    if (this.offset === 0 && size > CHUNK) {
      this.offset = size - CHUNK;
      this.partial = '\u0000'; // the first line read is cut: never parsed
    }
    if (size === this.offset) return;
    const file = await open(this.logPath, 'r');
    try {
      const buffer = Buffer.alloc(Math.min(size - this.offset, CHUNK));
      const { bytesRead } = await file.read(buffer, 0, buffer.length, this.offset);
      this.offset += bytesRead;
      const lines = (this.partial + buffer.subarray(0, bytesRead).toString('utf8')).split('\n');
      this.partial = lines.pop() ?? '';
      for (const line of lines) this.take(line);
    } finally {
      await file.close();
    }
  }

  private take(line: string): void {
    if (!line.includes(FAILED) && !line.includes(OBTAINED) && !line.includes(CHALLENGE_FAILED)) return;
    let entry: LogEntry;
    try {
      entry = JSON.parse(line) as LogEntry;
    } catch {
      return;
    }
    if (!entry.identifier) return;
    if (entry.msg === CHALLENGE_FAILED && entry.error) this.lastChallengeError.set(entry.identifier, `the ${entry.challenge_type ?? 'ACME'} challenge failed: ${entry.error}`);
    else if (entry.msg === OBTAINED) this.lastOutcome.set(entry.identifier, null);
    else if (entry.msg === FAILED) {
      const challenge = this.lastChallengeError.get(entry.identifier);
      this.lastChallengeError.delete(entry.identifier);
      this.lastOutcome.set(entry.identifier, challenge ?? entry.error ?? 'Caddy could not obtain a certificate');
    }
  }
}
