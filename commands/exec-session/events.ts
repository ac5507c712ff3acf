import { z } from 'zod';
import { eventParser, type EventsOf } from '../shared/event.js';

/** Why a terminal session ended: its command exited, the client closed, it was idle, it failed, or Slipway stopped. */
export const EXEC_END_REASONS = ['exited', 'closed', 'idle', 'failed', 'shutdown', 'interrupted'] as const;
export type ExecEndReason = (typeof EXEC_END_REASONS)[number];

/**
 * A terminal session into a running service (`execsession-<id>`): who opened it (the actor of the metadata), where
 * and what it ran, how long and how it ended. Never what was typed or printed.
 */
export const execSessionEvents = {
  ExecSessionStarted: z.object({
    serviceId: z.string(),
    projectId: z.string(),
    /** The container the command ran in (a Swarm task's container in cluster mode). */
    containerName: z.string(),
    /** The command as it ran, argument by argument (a string command is `sh -c <string>`). */
    command: z.array(z.string()),
    tty: z.boolean(),
  }),
  ExecSessionEnded: z.object({
    durationMs: z.number().int().min(0),
    /** null when the command did not end by itself (killed when the client closed, idle) or could not be read. */
    exitCode: z.number().int().nullable(),
    reason: z.enum(EXEC_END_REASONS),
  }),
};
export type ExecSessionEvent = EventsOf<typeof execSessionEvents>;
export const parseExecSessionEvent = eventParser(execSessionEvents);
