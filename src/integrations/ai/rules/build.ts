import { errorLine, lastOutputLine, quote } from './log-lines.js';
import { buildLocally, checkout, isSource } from './commands.js';
import type { BuiltinRule } from './rule.js';

export const buildTimeout: BuiltinRule = {
  id: 'build-timeout',
  explain(input) {
    const m = input.reason.match(/^docker build did not finish within (\d+) s/);
    if (!m) return null;
    const step = [...input.lines].reverse().find((l) => /^Step \d+\/\d+ : /.test(l));
    const last = lastOutputLine(input.lines);
    return {
      summary: `The build did not finish within ${m[1]} s and was stopped.`,
      likelyCause: `The build was still running${step ? ` at ${quote(step)}` : ''}${last ? `, its last output being ${quote(last)}` : ''}. A step hangs (waiting for input, a network call that never ends, a server started during the build) or the build is simply slower than the limit.`,
      suggestedFix: 'Run the build locally to see whether that step ends. Make commands non-interactive and never start long-running processes in a RUN step; if the build is just slow, raise SLIPWAY_BUILD_TIMEOUT (seconds) and restart Slipway.',
      commands: buildLocally(input.context, input.lines),
    };
  },
};

export const buildCommandFailed: BuiltinRule = {
  id: 'build-command-failed',
  explain(input) {
    const reason = input.reason.match(/^docker build failed: (.*)$/);
    if (!reason) return null;
    const failed =
      reason[1]!.match(/The command '(?:\/bin\/sh -c )?(.+)' returned a non-zero code: (\d+)/) ??
      reason[1]!.match(/process "(?:\/bin\/sh -c )?(.+)" did not complete successfully: exit code: (\d+)/);
    const command = failed?.[1] ?? null;
    const line = errorLine(input.lines);
    const { service } = input.context;
    const manager = command?.match(/^(npm|yarn|pnpm) /)?.[1];
    // A package script needs the dependencies installed first.
    const install = manager && !/^\S+ (install|ci)\b/.test(command!) ? [service.installCommand ?? `${manager} install`] : [];
    const replay = command ? [...install, command] : [service.installCommand, service.buildCommand].filter((c): c is string => Boolean(c));
    return {
      summary: command ? `The build step "${command}" failed with exit code ${failed![2]}.` : `The image build failed: ${quote(reason[1]!)}.`,
      likelyCause: line
        ? `The first error the build printed is ${quote(line)}.`
        : `The build stopped with ${quote(reason[1]!)} without printing a recognisable error line; the lines before it in the log show what it was doing.`,
      suggestedFix: `Fix the error${line ? ' quoted above' : ''} and run the same ${command ? 'command' : 'build'} locally in a clean checkout to confirm it passes, then deploy again. Service variables are given to the container when it starts, not to the build: a build that needs one must get it another way (a default in the code, or an ARG/ENV in your Dockerfile).`,
      commands: isSource(input.context)
        ? replay.length > 0 ? [...checkout(input.context, input.lines), ...replay] : buildLocally(input.context, input.lines)
        : [],
    };
  },
};
