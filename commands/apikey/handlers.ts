import { randomUUID } from 'node:crypto';
import type { CommandContext } from '../shared/command-context.js';
import { project } from '../project/aggregate.js';
import { invalid } from '../shared/domain-error.js';
import { execute, loadAggregate } from '../shared/execute.js';
import { apiKey, decideCreate, decideRevoke } from './aggregate.js';
import { generateApiKeySecret } from './secret.js';

export interface CreateApiKeyInput {
  name: string;
  access: 'read' | 'write';
  projectIds: string[] | null;
}

/** The secret is returned here and nowhere else: the log keeps its hash. */
export async function createApiKey(ctx: CommandContext, input: CreateApiKeyInput) {
  for (const projectId of input.projectIds ?? []) {
    const { state } = await loadAggregate(ctx, project, projectId);
    if (state.status !== 'live') throw invalid('projectIds', `unknown project ${projectId}`);
  }
  const id = randomUUID();
  const { secret, prefix, hash } = generateApiKeySecret();
  const result = await execute(ctx, apiKey, id, (s) =>
    decideCreate(s, { ...input, secretHash: hash, prefix }),
  );
  return { id, secret, position: result.position };
}

export async function revokeApiKey(ctx: CommandContext, id: string) {
  return execute(ctx, apiKey, id, decideRevoke);
}
