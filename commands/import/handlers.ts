import { backupIdOfRestoreOwner, dataLoadLockOf, restoreRunningInto } from '../backup/handlers.js';
import type { CommandContext } from '../shared/command-context.js';
import { conflict } from '../shared/domain-error.js';
import { execute, loadAggregate } from '../shared/execute.js';
import { newId } from '../shared/ids.js';
import { dataImport } from './aggregate.js';
import type { ImportEvent } from './events.js';

type Requested = Extract<ImportEvent, { type: 'ImportRequested' }>['data'];

export interface ImportRequestDeps {
  /** The id of the service's import that has not ended, if one has not (the read model's view). */
  unfinishedImportOf(serviceId: string): Promise<string | null>;
  /** Resolves once the read models include `position`. */
  settle(position: string | null): Promise<void>;
}

/**
 * One import at a time per service, and none while a restore runs into it: requests for a service queue here
 * (one process runs the API), each sees the read model with the previous request in it, and one that finds an
 * import or a restore still running is refused (409).
 * `sourceUrl` in clear: it is sealed here, under the import's own data key, before it reaches the log.
 */
export async function requestImport(ctx: CommandContext, deps: ImportRequestDeps, request: Omit<Requested, 'sourceUrl'>, sourceUrl: string) {
  const id = newId(ctx, 'import');
  const request_ = async () => {
    const running = await deps.unfinishedImportOf(request.serviceId);
    // A retry of this very request (same Idempotency-Key) finds its own import: it is answered, not refused.
    if (running !== null && running !== id) throw conflict(`import ${running} into this service is still running: wait for it to end`);
    const restoring = await restoreRunningInto(ctx, request.serviceId);
    if (restoring !== null) throw conflict(`a restore of backup ${backupIdOfRestoreOwner(restoring)} into this service is running: wait for it to end`);
    const sealed = await ctx.keyring.encrypt(`import-${id}`, sourceUrl);
    const { position } = await execute(ctx, dataImport, id, (s) => dataImport.decide.request(s, { ...request, sourceUrl: sealed }));
    await deps.settle(position);
    return { id, position };
  };
  return ctx.locks ? ctx.locks.run(dataLoadLockOf(request.serviceId), request_) : request_();
}

/** The import as requested, with its source URL opened (null once its key was shredded). */
export async function loadImport(ctx: CommandContext, id: string) {
  const { state } = await loadAggregate(ctx, dataImport, id);
  if (!state.requested) return null;
  return { ...state.requested, sourceUrl: await ctx.keyring.decrypt(state.requested.sourceUrl) };
}

export const importSteps = {
  start: (ctx: CommandContext, id: string) => execute(ctx, dataImport, id, dataImport.decide.start),
  succeed: (ctx: CommandContext, id: string) => execute(ctx, dataImport, id, dataImport.decide.succeed),
  fail: (ctx: CommandContext, id: string, error: string) => execute(ctx, dataImport, id, (s) => dataImport.decide.fail(s, error)),
};
