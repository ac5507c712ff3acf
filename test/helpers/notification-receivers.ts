import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The status it was answered with. */
  answered: number;
}

/**
 * A real HTTP receiver on loopback. `answer` decides each request's status (by default 200); every request
 * is kept with its raw body, as a receiver verifying signatures would read it.
 */
export async function startReceiver(answer: (request: { path: string; index: number }) => number = () => 200) {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      const status = answer({ path, index: received.filter((r) => r.path === path).length });
      received.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), answered: status });
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : `status ${status}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    received,
    async waitFor(count: number, path?: string, timeoutMs = 15_000) {
      const end = Date.now() + timeoutMs;
      const matching = () => received.filter((r) => path === undefined || r.path === path);
      while (matching().length < count) {
        if (Date.now() > end) throw new Error(`the receiver got ${matching().length} of ${count} requests${path ? ` on ${path}` : ''}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      return matching();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * What a receiver of Slipway's webhooks does: parse `t=…,v1=…`, recompute the HMAC-SHA256 of `t.body` with the
 * shared secret over the raw bytes, compare in constant time, refuse a `t` more than 5 minutes away.
 */
export function verifySlipwaySignature(secret: string, header: string | undefined, body: string, now = Date.now()): boolean {
  const parts = Object.fromEntries((header ?? '').split(',').map((p) => p.split('=', 2) as [string, string]));
  const t = Number(parts.t);
  if (!Number.isInteger(t) || !parts.v1 || Math.abs(now / 1000 - t) > 300) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest();
  const given = Buffer.from(parts.v1, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export interface Mail {
  from: string;
  to: string[];
  raw: string;
  user: string | null;
}

export interface SmtpServerOptions {
  /** Implicit TLS with this key and certificate (from the first byte, as on port 465). */
  tls?: { key: string; cert: string };
  /** Mail without any login is taken too. */
  authOptional?: boolean;
}

/**
 * A real SMTP server (the `smtp-server` package) on loopback, requiring the given login (unless `authOptional`);
 * every AUTH it is sent is kept, with the password it carried.
 */
export async function startSmtpServer(login: { user: string; password: string }, options: SmtpServerOptions = {}) {
  const mails: Mail[] = [];
  const auths: { user: string; password: string | undefined }[] = [];
  const server = new SMTPServer({
    ...(options.tls ? { secure: true, key: options.tls.key, cert: options.tls.cert } : { secure: false, allowInsecureAuth: true, disabledCommands: ['STARTTLS'] }),
    authOptional: options.authOptional === true,
    logger: false,
    onAuth(auth, _session, callback) {
      auths.push({ user: auth.username ?? '', password: auth.password ?? undefined });
      if (auth.username === login.user && auth.password === login.password) callback(null, { user: auth.username });
      else callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
          user: typeof session.user === 'string' ? session.user : null,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    mails,
    auths,
    async waitFor(count: number, timeoutMs = 15_000) {
      const end = Date.now() + timeoutMs;
      while (mails.length < count) {
        if (Date.now() > end) throw new Error(`the SMTP server got ${mails.length} of ${count} mails`);
        await new Promise((r) => setTimeout(r, 50));
      }
      return mails;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
