import type { Context } from 'koa';
import { currentPublicAddress, publicUrl } from '../proxy/public-url.js';
import type { Slipway } from '../slipway.js';

/** The API's public address: its domain through the proxy when one is set, else the address this request reached. */
export async function apiBaseUrl(app: Slipway, ctx: Context): Promise<string> {
  const { apiDomain } = await app.settings();
  return apiDomain ? publicUrl(apiDomain, await currentPublicAddress(app)) : `${ctx.protocol}://${ctx.host}`;
}
