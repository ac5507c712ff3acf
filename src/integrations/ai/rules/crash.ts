import { lastWords, quote, quoteAll } from './log-lines.js';
import { runLocally } from './commands.js';
import type { BuiltinRule } from './rule.js';

const EXIT_MEANING: Record<string, string> = {
  '0': 'it exited normally: the start command ended instead of keeping a server running (a one-off script, a build command, or a process that daemonizes)',
  '1': 'the app stopped on an error',
  '126': 'the start command is not executable (permissions or a wrong file)',
  '127': 'the start command was not found in the image (a typo, or a tool not installed in it)',
  '139': 'it crashed with a segmentation fault',
  '143': 'it was stopped with SIGTERM',
};

// src/processes/deployment/runs/readiness.ts and database-run.ts (while starting), release-watch.ts (once live).
const WHILE_STARTING = /the (container|database) exited with code (\S+) before it (?:was ready|answered)/;
const ONCE_LIVE = /within (\d+) s of going live, its container exited with code (\S+?)(?: \(Docker restarted it \d+×\))?;/;

export const crashedOnStart: BuiltinRule = {
  id: 'crashed-on-start',
  explain(input) {
    const starting = input.reason.match(WHILE_STARTING);
    const live = starting ? null : input.reason.match(ONCE_LIVE);
    if (!starting && !live) return null;
    const what = starting?.[1] ?? 'container';
    const code = (starting?.[2] ?? live?.[2])!;
    const when = live ? `within ${live[1]} s of going live` : 'while starting';
    const excerpt = lastWords(input);
    const meaning = EXIT_MEANING[code] ?? `the app ended itself with exit code ${code} (its own choice of code: the lines it printed last say why)`;
    return {
      summary: `The ${what} exited with code ${code} ${when}${excerpt ? `, after logging ${quote(excerpt.line)}` : ''}.`,
      likelyCause: `Exit code ${code}: ${meaning}.${excerpt ? ` Its last lines before exiting were ${quoteAll(excerpt.lines)}.` : ' It wrote nothing that names an error.'}`,
      suggestedFix: `Fix what the output names${code === '127' || code === '126' ? ' (check the start command and that the image contains it)' : ''}, run the app locally with the same PORT to confirm it stays up, then deploy again. Variables the app needs at start must be set on the service.`,
      commands: runLocally(input.context, input.lines),
    };
  },
};
