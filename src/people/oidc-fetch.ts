import type { CustomFetch } from 'openid-client';
import { pinnedLookup } from '../outbound/checked-connections.js';
import type { DestinationPolicy } from '../outbound/destination-policy.js';
import { ForbiddenDestinationError } from '../outbound/forbidden-destination.js';

/** An OpenID provider's answers are small (metadata, keys, tokens): more is refused. */
const MAX_ANSWER_BYTES = 512 * 1024;
const TIMEOUT_MS = 10_000;

const bare = (host: string) => host.replace(/^\[(.*)\]$/, '$1');

/**
 * openid-client's fetch through the outbound policy: every connection goes to the addresses the policy checked
 * (the issuer is a URL an owner typed, its metadata names more), redirects are handed back unfollowed, each
 * request has a deadline and a bounded answer. A refusal surfaces as the ForbiddenDestinationError itself.
 */
export function guardedFetch(policy: DestinationPolicy): CustomFetch {
  return async (url, options) => {
    // Loaded with the first sign-in: most servers never make one.
    const { Agent, buildConnector, fetch } = await import('undici');
    const dispatcher = new Agent({
      connect(connect, callback) {
        const port = Number(connect.port) || (connect.protocol === 'https:' ? 443 : 80);
        policy.resolve(bare(connect.hostname), port).then(
          (addresses) => buildConnector({ lookup: pinnedLookup(addresses), timeout: TIMEOUT_MS })(connect, callback),
          (error: Error) => callback(error, null),
        );
      },
    });
    const signal = options.signal ? AbortSignal.any([options.signal, AbortSignal.timeout(TIMEOUT_MS)]) : AbortSignal.timeout(TIMEOUT_MS);
    try {
      const answer = await fetch(url, { method: options.method, headers: options.headers, body: options.body as string | undefined, redirect: 'manual', signal, dispatcher });
      if (Number(answer.headers.get('content-length') ?? 0) > MAX_ANSWER_BYTES) throw new Error(`the provider answered more than ${MAX_ANSWER_BYTES / 1024} KiB`);
      const body = await answer.arrayBuffer();
      if (body.byteLength > MAX_ANSWER_BYTES) throw new Error(`the provider answered more than ${MAX_ANSWER_BYTES / 1024} KiB`);
      // A Response of this runtime: openid-client checks the class it knows.
      return new Response(answer.status === 204 || answer.status === 304 ? null : body, { status: answer.status, headers: [...answer.headers] });
    } catch (error) {
      const cause = (error as { cause?: unknown }).cause;
      if (cause instanceof ForbiddenDestinationError) throw cause;
      throw error;
    } finally {
      void dispatcher.close().catch(() => undefined);
    }
  };
}
