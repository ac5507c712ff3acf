import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { HookProvider } from '../../../commands/auto-deploy/events.js';

/** How far a signed timestamp may be from now (generic and Standard Webhooks). */
export const TIMESTAMP_TOLERANCE_SECONDS = 5 * 60;

export type HeaderOf = (name: string) => string;
export type SignatureCheck = { ok: true } | { ok: false; reason: 'signature' | 'stale' };

const hmacHex = (secret: string | Buffer, data: Buffer) => createHmac('sha256', secret).update(data).digest();

/** Equal in time that depends on neither value: both sides are hashed to one length first. */
function sameBytes(a: Buffer, b: Buffer): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb) && a.length === b.length;
}

/** `sha256=<hex>` (or bare hex) compared with the HMAC of `body`. */
function hexSignatureMatches(header: string, secret: string, body: Buffer, prefix: string | null): boolean {
  const value = prefix === null ? header.trim() : header.trim().startsWith(prefix) ? header.trim().slice(prefix.length) : '';
  if (!/^[0-9a-fA-F]{64}$/.test(value)) return false;
  return sameBytes(Buffer.from(value.toLowerCase(), 'hex'), hmacHex(secret, body));
}

const fresh = (seconds: number, now: number) => Math.abs(now / 1000 - seconds) <= TIMESTAMP_TOLERANCE_SECONDS;

/** `X-Slipway-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">`. */
function genericCheck(header: string, secret: string, body: Buffer, now: number): SignatureCheck {
  const parts = new Map(header.split(',').map((p) => p.trim().split('=', 2) as [string, string | undefined]));
  const t = parts.get('t');
  const v1 = parts.get('v1');
  if (!t || !/^\d{1,12}$/.test(t) || !v1 || !/^[0-9a-fA-F]{64}$/.test(v1)) return { ok: false, reason: 'signature' };
  const signed = Buffer.concat([Buffer.from(`${t}.`), body]);
  if (!sameBytes(Buffer.from(v1.toLowerCase(), 'hex'), hmacHex(secret, signed))) return { ok: false, reason: 'signature' };
  return fresh(Number(t), now) ? { ok: true } : { ok: false, reason: 'stale' };
}

/**
 * Standard Webhooks (GitLab's signing token): `webhook-signature: v1,<base64>[ v1,<base64>…]` over
 * `<webhook-id>.<webhook-timestamp>.<body>`, keyed with the secret's text (`whsec_` + its base64 on the Git host).
 */
function standardWebhooksCheck(header: HeaderOf, secret: string, body: Buffer, now: number): SignatureCheck {
  const id = header('webhook-id');
  const timestamp = header('webhook-timestamp');
  if (!id || !/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: 'signature' };
  const expected = hmacHex(secret, Buffer.concat([Buffer.from(`${id}.${timestamp}.`), body]));
  const matches = header('webhook-signature')
    .split(' ')
    .filter((s) => s.startsWith('v1,'))
    .some((s) => sameBytes(Buffer.from(s.slice(3), 'base64'), expected));
  if (!matches) return { ok: false, reason: 'signature' };
  return fresh(Number(timestamp), now) ? { ok: true } : { ok: false, reason: 'stale' };
}

/** The provider's own scheme, over the raw bytes, before anything of the body is parsed. */
export function checkSignature(provider: HookProvider, header: HeaderOf, secret: string, body: Buffer, now = Date.now()): SignatureCheck {
  const verdict = (ok: boolean): SignatureCheck => (ok ? { ok: true } : { ok: false, reason: 'signature' });
  switch (provider) {
    case 'github':
      return verdict(hexSignatureMatches(header('x-hub-signature-256'), secret, body, 'sha256='));
    case 'gitea':
      return verdict(hexSignatureMatches(header('x-gitea-signature') || header('x-forgejo-signature'), secret, body, null));
    case 'bitbucket':
      return verdict(hexSignatureMatches(header('x-hub-signature'), secret, body, 'sha256='));
    case 'gitlab':
      if (header('webhook-signature')) return standardWebhooksCheck(header, secret, body, now);
      return verdict(sameBytes(Buffer.from(header('x-gitlab-token')), Buffer.from(secret)));
    case 'generic':
      return genericCheck(header('x-slipway-signature'), secret, body, now);
  }
}
