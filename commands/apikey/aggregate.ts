import type { Aggregate } from '../shared/aggregate.js';
import { conflict, notFound } from '../shared/domain-error.js';
import { parseApiKeyEvent, type ApiKeyEvent } from './events.js';

export type ApiKeyState = { status: 'none' | 'active' | 'revoked' };

export const apiKey: Aggregate<ApiKeyState, ApiKeyEvent> = {
  category: 'apikey',
  initial: { status: 'none' },
  evolve: (_state, event) => ({ status: event.type === 'ApiKeyCreated' ? 'active' : 'revoked' }),
  parse: parseApiKeyEvent,
};

export function decideCreate(
  state: ApiKeyState,
  data: Extract<ApiKeyEvent, { type: 'ApiKeyCreated' }>['data'],
): ApiKeyEvent[] {
  if (state.status !== 'none') throw conflict('api key already exists');
  return [{ type: 'ApiKeyCreated', data }];
}

export function decideRevoke(state: ApiKeyState): ApiKeyEvent[] {
  if (state.status === 'none') throw notFound('api key');
  return state.status === 'revoked' ? [] : [{ type: 'ApiKeyRevoked', data: {} }];
}
