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
