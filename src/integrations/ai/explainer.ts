import type { DestinationPolicy } from '../../outbound/destination-policy.js';
import { outboundFetch } from '../../outbound/checked-connections.js';
import { ForbiddenDestinationError } from '../../outbound/forbidden-destination.js';
import { outsideAnswerText } from '../../outbound/outside-answers.js';
import { parseExplanation } from './answer.js';
import { AiProviderError, type FailureContext, type FailureExplanation } from './explanation.js';
import { explanationPrompt, type ExplanationPrompt } from './prompt.js';

export interface FailureExplainer {
  explain(context: FailureContext, model: string | null): Promise<FailureExplanation>;
}

export const DEFAULT_TIMEOUT_MS = 60_000;

/** A chat-style model endpoint: one request, the model's text. */
export interface ChatProvider {
  readonly defaultModel: string | null;
  ask(prompt: ExplanationPrompt, model: string): Promise<string>;
}

/** Asks the model; an answer that holds no valid explanation gets one more request, with a note saying why. */
export function chatExplainer(provider: ChatProvider): FailureExplainer {
  return {
    async explain(context, model) {
      const chosen = model?.trim() || provider.defaultModel?.trim();
      if (!chosen) throw new AiProviderError("no model given: choose a model, or connect the provider with a defaultModel", 'refused');
      for (const retry of [false, true]) {
        const explanation = parseExplanation(await provider.ask(explanationPrompt(context, { retry }), chosen));
        if (explanation) return explanation;
      }
      throw new AiProviderError(
        `the model ${chosen} answered twice without a valid explanation (a JSON object with summary, likelyCause, suggestedFix and commands)`,
        'malformed',
      );
    },
  };
}

export interface ProviderRequest {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: unknown;
}

export interface RequestOptions {
  timeoutMs: number;
  /** Taken out of every error message (a provider may echo a wrong key back). */
  secret: string | null;
  /** Every connection goes where this policy lets it. */
  outbound: DestinationPolicy;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export const duration = (ms: number) => (ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`);

/** OpenAI `{error: {message}}`, Anthropic `{type: 'error', error: {type, message}}`, or the bare `{error: '…'}` of some local servers. */
function providerMessage(body: unknown): string | null {
  if (!isRecord(body)) return null;
  const { error } = body;
  if (typeof error === 'string' && error) return error;
  if (isRecord(error) && typeof error.message === 'string' && error.message) {
    return typeof error.type === 'string' && error.type ? `${error.message} (${error.type})` : error.message;
  }
  return typeof body.message === 'string' && body.message ? body.message : null;
}

function networkCause(error: unknown): string {
  // fetch reports every network failure as "fetch failed"; the reason is in `cause`.
  const cause = isRecord(error) && error.cause instanceof Error ? error.cause : error;
  if (cause instanceof AggregateError && cause.errors[0] instanceof Error) return cause.errors[0].message;
  return cause instanceof Error ? cause.message : String(cause);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * One HTTP call to a provider with a deadline on the whole exchange, body included. Every failure is an
 * AiProviderError: unreachable, timeout, refused (non-2xx, with at most a short line of the provider's own
 * words from its JSON error) or malformed (not JSON); a destination the policy refuses stays a
 * ForbiddenDestinationError.
 */
export async function callProvider(request: ProviderRequest, { timeoutMs, secret, outbound }: RequestOptions): Promise<unknown> {
  const hide = (text: string) => (secret && secret.length >= 8 ? text.replaceAll(secret, '[secret]') : text);
  const where = new URL(request.url);
  const endpoint = `${where.origin}${where.pathname}`;
  // A timer holding the controller rather than AbortSignal.timeout: see `deadline` in src/processes/deployment/toolkit/run-step.ts.
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  let status: number;
  let text: string;
  try {
    ({ status, text } = await outboundFetch(outbound, request.url, {
      method: request.method,
      headers: request.headers,
      ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
      signal: controller.signal,
    }));
  } catch (error) {
    if (error instanceof ForbiddenDestinationError) throw error;
    if (controller.signal.aborted) throw new AiProviderError(`${endpoint} did not answer within ${duration(timeoutMs)}`, 'timeout');
    throw new AiProviderError(hide(`${endpoint} is unreachable: ${networkCause(error)}`), 'unreachable');
  } finally {
    clearTimeout(timer);
  }
  const body = parseJson(text);
  if (status < 200 || status > 299) throw new AiProviderError(hide(`${endpoint} answered ${outsideAnswerText(status, text, providerMessage)}`), 'refused');
  if (body === undefined) throw new AiProviderError(`${endpoint} answered HTTP ${status} with a body that is not JSON`, 'malformed');
  return body;
}
