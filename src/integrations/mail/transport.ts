import type { Transporter } from 'nodemailer';
import type { DestinationPolicy } from '../../outbound/destination-policy.js';
import { shortLine } from '../../outbound/outside-answers.js';

/** Where and how Slipway speaks SMTP: a notification channel's e-mail settings and the installation's mail settings alike. */
export interface SmtpServer {
  host: string;
  port: number;
  /** Implicit TLS from the first byte (usually port 465). */
  secure: boolean;
  /** Without `secure`: refuse to go on unless the server upgrades with STARTTLS. */
  requireTLS: boolean;
  user: string;
  password: string;
}

export const SMTP_TIMEOUT_MS = 15_000;

/**
 * A nodemailer transport to `server`, connecting only to an address the outbound policy allows (a
 * ForbiddenDestinationError otherwise). TLS still verifies the name the user gave, and a password never goes
 * out in clear, even for settings saved before this was checked. Close it after use.
 */
export async function smtpTransport(policy: DestinationPolicy, server: SmtpServer, timeoutMs = SMTP_TIMEOUT_MS): Promise<Transporter> {
  const [address] = await policy.resolve(server.host, server.port);
  const { createTransport } = await import('nodemailer');
  return createTransport({
    host: address,
    port: server.port,
    secure: server.secure,
    requireTLS: server.requireTLS || (server.password !== '' && !server.secure),
    auth: server.user && server.password ? { user: server.user, pass: server.password } : undefined,
    tls: { servername: server.host },
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
  });
}

/** What an SMTP failure may show: the server's reply code and its words, on one short line (never the login). */
export function smtpFailure(error: unknown): { status: number | null; message: string } {
  const code = (error as { responseCode?: unknown }).responseCode;
  return { status: typeof code === 'number' ? code : null, message: shortLine(String((error as Error).message ?? error)) ?? 'no readable message' };
}
