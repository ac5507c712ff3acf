import { createHmac } from 'node:crypto';

/** `X-Slipway-Signature`: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">`, as generic hooks take it. */
export function slipwaySignature(secret: string, body: string, at: Date): string {
  const t = Math.floor(at.getTime() / 1000);
  return `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;
}
