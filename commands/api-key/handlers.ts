import type { CommandContext } from '../shared/command-context.js';
import { project } from '../project/aggregate.js';
import { conflict, invalid } from '../shared/domain-error.js';
import { execute, loadAggregate } from '../shared/execute.js';
import { newId } from '../shared/ids.js';
import { apiKey } from './aggregate.js';
import { generateApiKeySecret } from './secret.js';

export interface CreateApiKeyInput {
  name: string;
  access: 'read' | 'write';
  projectIds: string[] | null;
  /** The person it belongs to; null: an installation key. */
  ownerUserId: string | null;
}

/** The secret is returned here and nowhere else: the log keeps its hash. */
export async function createApiKey(ctx: CommandContext, input: CreateApiKeyInput) {
  for (const projectId of input.projectIds ?? []) {
    const { state } = await loadAggregate(ctx, project, projectId);
    if (state.status !== 'live') throw invalid('projectIds', `unknown project ${projectId}`);
  }
  const id = newId(ctx, 'apikey');
  const { secret, prefix, hash } = generateApiKeySecret();
  const result = await execute(ctx, apiKey, id, (s) =>
    apiKey.decide.create(s, { ...input, secretHash: hash, prefix }),
  );
  // A retry whose first attempt created the key but never answered: that secret is lost (only its hash is kept).
  const created = result.events[0];
  if (created?.type === 'ApiKeyCreated' && created.data.secretHash !== hash) {
    throw conflict(`an earlier attempt of this request created API key ${id} and its secret cannot be shown again: revoke it and create another`);
  }
  return { id, secret, position: result.position };
}

export async function revokeApiKey(ctx: CommandContext, id: string) {
  return execute(ctx, apiKey, id, apiKey.decide.revoke);
}
