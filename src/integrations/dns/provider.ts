import { STATUS_CODES } from 'node:http';
import type { z } from 'zod';
import { outboundFetch } from '../../outbound/checked-connections.js';
import type { DestinationPolicy } from '../../outbound/destination-policy.js';
import { ForbiddenDestinationError } from '../../outbound/forbidden-destination.js';
import { outsideMessage } from '../../outbound/outside-answers.js';

export type DnsRecordType = 'A' | 'AAAA';

/** A zone as the provider names it, lowercase, without the trailing dot. */
export interface DnsZone {
  id: string;
  name: string;
}

export interface DnsRecord {
  id: string;
  content: string;
}

/** What Slipway needs of a DNS provider: its zones, and the address records of one name. */
export interface DnsProviderClient {
  /** Every zone, across the provider's pages. */
  listZones(): Promise<DnsZone[]>;
  findRecords(zone: DnsZone, fqdn: string, type: DnsRecordType): Promise<DnsRecord[]>;
  createRecord(zone: DnsZone, fqdn: string, type: DnsRecordType, content: string): Promise<void>;
  updateRecord(zone: DnsZone, record: DnsRecord, fqdn: string, type: DnsRecordType, content: string): Promise<void>;
}

/** The provider refused (`status` is its HTTP status, the message its own words) or could not be reached (`status` null). */
export class DnsProviderError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
  ) {
    super(message);
    this.name = 'DnsProviderError';
  }
}

/** How a route tells a client what went wrong: the provider's status and words, or why it could not be reached. */
export function dnsFailureText(providerName: string, refused: string, error: DnsProviderError): string {
  if (error.status === null) return `${providerName}: ${error.message}`;
  return `${providerName} ${refused}: ${error.message.startsWith('HTTP ') ? error.message : `HTTP ${error.status}: ${error.message}`}`;
}

export const DEFAULT_DNS_TIMEOUT_MS = 15_000;

export interface JsonCall {
  method?: string;
  headers: Record<string, string>;
  body?: unknown;
  timeoutMs?: number;
  /** Where the provider's API may be reached. */
  outbound: DestinationPolicy;
}

/** Where a call went, without the query string: enough to tell which server did not answer. */
const target = (url: string) => {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
};

function networkCause(error: unknown, timeoutMs: number): string {
  const name = (error as { name?: unknown } | null)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') return `no answer within ${timeoutMs / 1000} s`;
  // fetch wraps every network failure in a TypeError("fetch failed") whose cause says what happened.
  const cause = error instanceof Error ? (error.cause as { code?: unknown; message?: unknown } | undefined) : undefined;
  if (typeof cause?.message === 'string' && cause.message) return cause.message;
  if (typeof cause?.code === 'string') return cause.code;
  return error instanceof Error ? error.message : String(error);
}

/**
 * One JSON call to a provider's API, answered with the parsed body (null when empty). A non-2xx answer
 * becomes a DnsProviderError carrying at most a short line of what `errorOf` finds in the provider's JSON
 * error body (never a page it sent); a network failure or timeout, one that names the URL it could not
 * reach. Redirects are refused (they would carry the credentials wherever they point) and a destination
 * the policy refuses stays a ForbiddenDestinationError.
 */
export async function callJson(url: string, call: JsonCall, errorOf: (body: unknown) => string | null): Promise<unknown> {
  const timeoutMs = call.timeoutMs ?? DEFAULT_DNS_TIMEOUT_MS;
  let status: number;
  let text: string;
  try {
    // The timeout also covers the body: a server that stalls mid-answer is as unreachable as a silent one.
    ({ status, text } = await outboundFetch(call.outbound, url, {
      method: call.method ?? 'GET',
      headers: { accept: 'application/json', ...(call.body === undefined ? {} : { 'content-type': 'application/json' }), ...call.headers },
      body: call.body === undefined ? undefined : JSON.stringify(call.body),
      signal: AbortSignal.timeout(timeoutMs),
    }));
  } catch (error) {
    if (error instanceof ForbiddenDestinationError) throw error;
    throw new DnsProviderError(`could not reach ${target(url)}: ${networkCause(error, timeoutMs)}`, null);
  }
  let body: unknown = null;
  let isJson = text.trim() === '';
  if (!isJson) {
    try {
      body = JSON.parse(text);
      isJson = true;
    } catch {
      body = null;
    }
  }
  if (status < 200 || status > 299) {
    // The standard phrase of the status, not the server's: nothing but its JSON error is ever repeated.
    throw new DnsProviderError(outsideMessage(text, errorOf) ?? `HTTP ${status} ${STATUS_CODES[status] ?? ''}`.trim(), status);
  }
  if (!isJson) throw new DnsProviderError(`unexpected answer from ${target(url)}: not JSON`, status);
  return body;
}

/** The body as `schema` reads it, or a DnsProviderError naming the answer that did not fit. */
export function expectShape<T>(schema: z.ZodType<T>, body: unknown, what: string): T {
  const result = schema.safeParse(body);
  if (!result.success) throw new DnsProviderError(`unexpected answer to ${what}`, null);
  return result.data;
}
