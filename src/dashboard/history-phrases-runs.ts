import { str, type Phrase } from './history-names.js';

const because = (reason: unknown) => (str(reason) ? `: ${str(reason).split('\n')[0]}` : '');
const what = (d: Record<string, unknown>) => (str(d.jobName) ? `the job ${str(d.jobName)}` : 'a command');

/** Job runs and one-off commands (`jobrun-<id>`, `jobrunlog-<id>`). */
export const RUN_PHRASES: Record<string, Phrase> = {
  JobRunRequested: ({ who, d, service }) => (d.trigger === 'schedule' ? `Slipway ran the job ${str(d.jobName)} of ${service} as scheduled` : `${who} ran ${what(d)} in ${service}`),
  JobRunSkipped: ({ d, service }) => `A scheduled run of the job ${str(d.jobName)} of ${service} was skipped${because(d.reason)}`,
  JobRunStarted: ({ d, service }) => `A run in ${service} started in release v${String(d.releaseVersion)}`,
  JobRunCancelRequested: ({ who, service }) => `${who} canceled a run in ${service}`,
  JobRunFinished: ({ d, service }) => {
    switch (d.status) {
      case 'succeeded':
        return `A run in ${service} succeeded`;
      case 'timed_out':
        return `A run in ${service} timed out`;
      case 'canceled':
        return `A run in ${service} was canceled`;
      default:
        return `A run in ${service} failed${typeof d.exitCode === 'number' ? ` with exit code ${d.exitCode}` : because(d.reason)}`;
    }
  },
  JobRunLogAppended: ({ d, service }) => `A run in ${service} wrote ${Array.isArray(d.lines) && d.lines.length === 1 ? 'a log line' : 'log lines'}`,
};
