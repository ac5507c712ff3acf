import type { GetAnswer } from '../../api.js';
import { durationWords } from '../../duration.js';

export type Job = GetAnswer<'/api/services/{serviceId}/jobs'>['jobs'][number];
export type JobRun = GetAnswer<'/api/services/{serviceId}/runs'>['runs'][number];

/** A run still to end: the ones a person may cancel and whose log is followed live. */
export const isActive = (run: Pick<JobRun, 'status'>) => run.status === 'queued' || run.status === 'running';

export const TRIGGER_WORDS: Record<JobRun['trigger'], string> = { schedule: 'schedule', manual: 'run now', 'one-off': 'one-off' };

/** A command as a person typed it: a string as is; an argv with its words joined (quoted where they hold a space). */
export const commandText = (command: string | string[]): string =>
  typeof command === 'string' ? command : command.map((word) => (/[\s"'\\$]/.test(word) || word === '' ? JSON.stringify(word) : word)).join(' ');

/** What a run ran: a one-off's own command (`sh -c` left out), a job's name. */
export const runCommandText = (run: JobRun): string =>
  run.command.length === 3 && run.command[0] === 'sh' && run.command[1] === '-c' ? run.command[2]! : commandText(run.command);

/** How long it ran: its duration once ended, "running" meanwhile. */
export const tookWords = (run: JobRun) => (run.durationMs !== null ? durationWords(run.durationMs) : run.status === 'running' ? 'running' : '—');

/** How late a scheduled run started after its due time; nothing under a second (every run is a little late). */
export const latenessWords = (run: JobRun): string | null => (run.lateMs !== null && run.lateMs >= 1000 ? `${durationWords(run.lateMs)} late` : null);

/** A run's end in a few words: `exit code 0 · 2 s`, or the reason it never ran its command to its end. */
export const endWords = (run: JobRun): string =>
  [run.exitCode === null ? null : `exit code ${run.exitCode}`, run.durationMs === null ? null : durationWords(run.durationMs)].filter(Boolean).join(' · ');
