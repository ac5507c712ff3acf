import type { FailureExplanation } from '../explanation.js';
import { errorLine, lastOutputLine, quote } from './log-lines.js';
import { runLocally } from './commands.js';
import type { RuleInput } from './rule.js';

/** When no rule recognises the failure: the reason and the most relevant line, quoted as they are. */
export function fallbackExplanation({ reason, lines, context }: RuleInput): FailureExplanation {
  const line = errorLine(lines);
  const last = line ? null : lastOutputLine(lines);
  return {
    summary: reason ? `The deployment failed: ${quote(reason)}.` : 'The deployment failed without a recorded reason.',
    likelyCause: line
      ? `None of the built-in rules recognises this failure. The most relevant line of the log is ${quote(line)}.`
      : `None of the built-in rules recognises this failure, and the log shows no error line${last ? `; its last line is ${quote(last)}` : ''}.`,
    suggestedFix:
      'Read the log around that line to see which step failed, reproduce that step locally, fix it and deploy again. An AI provider (openai or anthropic) can give a fuller explanation of an unusual failure.',
    commands: runLocally(context, lines),
  };
}
