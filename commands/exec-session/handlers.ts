import type { CommandContext } from '../shared/command-context.js';
import { execute } from '../shared/execute.js';
import { newId } from '../shared/ids.js';
import { execSession } from './aggregate.js';
import type { ExecEndReason, ExecSessionEvent } from './events.js';

type Started = Extract<ExecSessionEvent, { type: 'ExecSessionStarted' }>['data'];

/** Records a session as started, before the command runs; answers its id. */
export async function startExecSession(ctx: CommandContext, started: Started) {
  const id = newId(ctx, 'execsession');
  const { position } = await execute(ctx, execSession, id, (s) => execSession.decide.start(s, started));
  return { id, position };
}

export const endExecSession = (ctx: CommandContext, id: string, ended: { durationMs: number; exitCode: number | null; reason: ExecEndReason }) =>
  execute(ctx, execSession, id, (s) => execSession.decide.end(s, ended));

/**
 * At start-up, before any session can open: sessions the log has no end of were cut short when Slipway stopped
 * without ending them (a crash). Each ends `interrupted`, its duration counted up to now (an upper bound).
 */
export async function endInterruptedExecSessions(ctx: CommandContext, unended: readonly { id: string; startedAt: string }[], now = Date.now()): Promise<number> {
  for (const session of unended) await endExecSession(ctx, session.id, { durationMs: now - Date.parse(session.startedAt), exitCode: null, reason: 'interrupted' });
  return unended.length;
}
