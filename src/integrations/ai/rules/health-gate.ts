import { appExcerpt, quoteAll } from './log-lines.js';
import { runLocally } from './commands.js';
import type { BuiltinRule } from './rule.js';

// src/processes/deployment/runs/readiness.ts (the gate) and release-watch.ts (once live).
const BROKEN = /the app answered HTTP (\d{3}) on (\S+) to (\d+) health checks in a row/;
const TIMED_OUT = /the http health check did not pass(?: (\d+) times in a row)? within (\d+) s; last probe: HTTP (\d{3}) from (\S+)/;
const ONCE_LIVE = /within (\d+) s of going live, its http health check failed (\d+) times in a row \(HTTP (\d{3}) from (\S+)/;

interface Answer {
  status: number;
  path: string;
  /** How the gate came to fail, for the summary. */
  how: string;
}

function answerOf(reason: string): Answer | null {
  const broken = reason.match(BROKEN);
  if (broken) return { status: Number(broken[1]), path: broken[2]!, how: `to ${broken[3]} health checks in a row` };
  const timedOut = reason.match(TIMED_OUT);
  if (timedOut) {
    const times = timedOut[1] ? `${timedOut[1]} passing checks in a row` : 'a passing check';
    return { status: Number(timedOut[3]), path: timedOut[4]!, how: `until the start timeout (${timedOut[2]} s) ran out before ${times}` };
  }
  const live = reason.match(ONCE_LIVE);
  if (live) return { status: Number(live[3]), path: live[4]!, how: `${live[2]} times in a row within ${live[1]} s of going live` };
  return null;
}

export const healthCheckAnswered: BuiltinRule = {
  id: 'health-check-http-status',
  explain(input) {
    const answer = answerOf(input.reason);
    if (!answer) return null;
    const { status, path, how } = answer;
    const port = input.context.service.internalPort;
    const excerpt = appExcerpt(input);
    const own = excerpt
      ? ` Its own output around the failure: ${quoteAll(excerpt.lines)}.`
      : ' It printed nothing about the failure: make it log the errors of its requests (for example to stderr) to see why.';
    const check = `curl -i http://127.0.0.1:${port}${path}`;
    if (status >= 500) {
      return {
        summary: `The app is up but answered HTTP ${status} on ${path} ${how}, so Slipway did not route traffic to it.`,
        likelyCause: `HTTP ${status} is the app's own answer: it started and listens on port ${port}, but handling ${path} fails inside the app (an exception, a dependency it cannot reach, missing configuration).${own}`,
        suggestedFix: `Fix what the app's output names, run it locally with the same PORT and request ${path} until it answers 2xx or 3xx, then deploy again.${excerpt ? '' : ' If it needs a database or another service, check that the variables pointing to it are set on the service.'}`,
        commands: [...runLocally(input.context, input.lines), check],
      };
    }
    return {
      summary: `The app is up but answered HTTP ${status} on ${path} ${how}, which the health check does not accept.`,
      likelyCause: `The health check requests ${path} on port ${port} and expects a status in its expectStatus range.${status === 404 ? ` HTTP 404 means the app has no route ${path}: the path is misspelt, or the app serves it under another prefix.` : status === 401 || status === 403 ? ` HTTP ${status} means the app wants authentication for ${path}: a health path must answer without it.` : ''}${own}`,
      suggestedFix: `Make ${path} answer 2xx or 3xx without authentication, or set the service's healthCheck to a path that does (its path and expectStatus), then deploy again.`,
      commands: [...runLocally(input.context, input.lines), check],
    };
  },
};
