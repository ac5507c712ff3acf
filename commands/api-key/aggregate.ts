import { defineAggregate, type Evolution } from '../shared/aggregate.js';
import { conflict, invalid, notFound } from '../shared/domain-error.js';
import { parseApiKeyEvent, type ApiKeyEvent, type ApiKeyScope } from './events.js';

export type ApiKeyState = { status: 'none' | 'active' | 'revoked' };

const evolution: Evolution<ApiKeyState, ApiKeyEvent> = {
  category: 'apikey',
  initial: { status: 'none' },
  evolve: (_state, event) => ({ status: event.type === 'ApiKeyCreated' ? 'active' : 'revoked' }),
  parse: parseApiKeyEvent,
};

export interface CreateApiKeyData {
  name: string;
  access: 'read' | 'write';
  /** null: every project. */
  projectIds: readonly string[] | null;
  secretHash: string;
  prefix: string;
  ownerUserId: string | null;
}

function scopeOf(projectIds: readonly string[] | null): ApiKeyScope {
  if (projectIds === null) return { kind: 'all' };
  if (projectIds.length === 0) throw invalid('projectIds', 'give at least one project, or null for every project');
  return { kind: 'projects', projectIds: [...new Set(projectIds)] };
}

function decideCreate(state: ApiKeyState, { projectIds, ...data }: CreateApiKeyData): ApiKeyEvent[] {
  if (state.status !== 'none') throw conflict('api key already exists');
  return [{ type: 'ApiKeyCreated', data: { ...data, scope: scopeOf(projectIds) } }];
}

function decideRevoke(state: ApiKeyState): ApiKeyEvent[] {
  if (state.status === 'none') throw notFound('api key');
  return state.status === 'revoked' ? [] : [{ type: 'ApiKeyRevoked', data: {} }];
}

/** The apiKey aggregate and its command vocabulary. */
export const apiKey = defineAggregate(evolution, {
  create: decideCreate,
  revoke: decideRevoke,
});
