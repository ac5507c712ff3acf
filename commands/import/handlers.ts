import type { CommandContext } from '../shared/command-context.js';
import { execute, loadAggregate } from '../shared/execute.js';
import { newId } from '../shared/ids.js';
import { dataImport, decideFail, decideRequest, decideStart, decideSucceed } from './aggregate.js';
import type { ImportEvent } from './events.js';

type Requested = Extract<ImportEvent, { type: 'ImportRequested' }>['data'];

/** `sourceUrl` in clear: it is sealed here, under the import's own data key, before it reaches the log. */
export async function requestImport(ctx: CommandContext, request: Omit<Requested, 'sourceUrl'>, sourceUrl: string) {
  const id = newId(ctx, 'import');
  const sealed = await ctx.keyring.encrypt(`import-${id}`, sourceUrl);
  const { position } = await execute(ctx, dataImport, id, (s) => decideRequest(s, { ...request, sourceUrl: sealed }));
  return { id, position };
}

/** The import as requested, with its source URL opened (null once its key was shredded). */
export async function loadImport(ctx: CommandContext, id: string) {
  const { state } = await loadAggregate(ctx, dataImport, id);
  if (!state.requested) return null;
  return { ...state.requested, sourceUrl: await ctx.keyring.decrypt(state.requested.sourceUrl) };
}

export const importSteps = {
  start: (ctx: CommandContext, id: string) => execute(ctx, dataImport, id, decideStart),
  succeed: (ctx: CommandContext, id: string) => execute(ctx, dataImport, id, decideSucceed),
  fail: (ctx: CommandContext, id: string, error: string) => execute(ctx, dataImport, id, (s) => decideFail(s, error)),
};
