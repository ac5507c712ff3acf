import { z } from 'zod';

/** One line of a run's output as stored: deployments' and job runs' logs share it. */
export const logLine = z.object({ line: z.string(), stream: z.enum(['stdout', 'stderr', 'system']), at: z.string() });
export type LogLine = z.infer<typeof logLine>;

/** A chunk of lines on a log stream of its own (`deploymentlog-<id>`, `jobrunlog-<id>`), never one event per line. */
export const logChunk = z.object({ first: z.number().int().min(1), lines: z.array(logLine) });
