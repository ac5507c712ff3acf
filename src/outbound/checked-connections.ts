import { Agent as HttpAgent, type ClientRequestArgs } from 'node:http';
import { Agent as HttpsAgent, type RequestOptions } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { Duplex } from 'node:stream';
import type { DestinationPolicy } from './destination-policy.js';
import { ForbiddenDestinationError } from './forbidden-destination.js';

/**
 * A `lookup` that answers with the addresses the policy checked, whatever it is asked: the socket connects
 * to those and a second lookup (which DNS could answer differently) never happens.
 */
export function pinnedLookup(addresses: readonly string[]): LookupFunction {
  return (_hostname, options, callback) => {
    const family = (a: string) => isIP(a);
    if (options.all) callback(null, addresses.map((address) => ({ address, family: family(address) })));
    else callback(null, addresses[0]!, family(addresses[0]!));
  };
}

const bare = (host: string) => host.replace(/^\[(.*)\]$/, '$1');
const portOf = (port: string | number | null | undefined, secure: boolean) => Number(port) || (secure ? 443 : 80);

export interface OutboundRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
}

/** What came back: the status, and the body as text (the caller decides what of it may be shown). */
export interface OutboundAnswer {
  status: number;
  text: string;
}

/**
 * One HTTP request through the policy: every connection is made to the addresses checked for it (an IP in
 * the URL is checked as it is), redirects are refused (they could lead anywhere). Fails with a
 * ForbiddenDestinationError when the policy refuses, or with fetch's own error (its `cause` says why).
 */
export async function outboundFetch(policy: DestinationPolicy, url: string, request: OutboundRequest = {}): Promise<OutboundAnswer> {
  // Loaded with the first outside call: most servers never make one.
  const { Agent, buildConnector, fetch } = await import('undici');
  const dispatcher = new Agent({
    connect(options, callback) {
      const port = portOf(options.port, options.protocol === 'https:');
      policy.resolve(bare(options.hostname), port).then(
        (addresses) => buildConnector({ lookup: pinnedLookup(addresses), timeout: 10_000 })(options, callback),
        (error: Error) => callback(error, null),
      );
    },
  });
  try {
    const response = await fetch(url, { method: request.method ?? 'GET', headers: request.headers, body: request.body, signal: request.signal, redirect: 'error', dispatcher });
    return { status: response.status, text: await response.text() };
  } catch (error) {
    const cause = (error as { cause?: unknown }).cause;
    if (cause instanceof ForbiddenDestinationError) throw cause;
    throw error;
  } finally {
    void dispatcher.close().catch(() => undefined);
  }
}

type Callback = (error: Error | null, stream: Duplex) => void;
type Connect = (options: ClientRequestArgs) => Duplex | null | undefined;

/** Creates the socket once the policy has checked where it goes (Node's Agent waits for the callback). */
function checkedConnection(policy: DestinationPolicy, secure: boolean, options: ClientRequestArgs, callback: Callback, connect: Connect): undefined {
  const host = bare(options.hostname ?? options.host ?? 'localhost');
  const failed = (error: Error) => callback(error, undefined as unknown as Duplex);
  policy.resolve(host, portOf(options.port, secure)).then((addresses) => {
    try {
      const socket = connect({ ...options, lookup: pinnedLookup(addresses) });
      if (socket) callback(null, socket);
      else failed(new Error('no socket'));
    } catch (error) {
      failed(error as Error);
    }
  }, failed);
  return undefined;
}

class CheckedHttpAgent extends HttpAgent {
  constructor(private readonly policy: DestinationPolicy) {
    super({ keepAlive: true });
  }
  override createConnection(options: ClientRequestArgs, callback?: Callback) {
    return checkedConnection(this.policy, false, options, callback ?? (() => undefined), (o) => super.createConnection(o));
  }
}

class CheckedHttpsAgent extends HttpsAgent {
  constructor(private readonly policy: DestinationPolicy) {
    super({ keepAlive: true });
  }
  override createConnection(options: RequestOptions, callback?: Callback) {
    return checkedConnection(this.policy, true, options, callback ?? (() => undefined), (o) => super.createConnection(o as RequestOptions));
  }
}

/** Node agents (for SDKs that take them, such as S3's) whose every connection goes through the policy. */
export function checkedAgents(policy: DestinationPolicy): { httpAgent: HttpAgent; httpsAgent: HttpsAgent } {
  return { httpAgent: new CheckedHttpAgent(policy), httpsAgent: new CheckedHttpsAgent(policy) };
}
