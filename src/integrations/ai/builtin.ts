import { BUILTIN_RULES, fallbackExplanation, type RuleInput } from './builtin-rules.js';
import { failureExplanationSchema, MAX_COMMANDS, type FailureContext, type FailureExplanation } from './explanation.js';
import type { FailureExplainer } from './explainer.js';

export const FALLBACK_RULE = 'fallback';

/** The first built-in rule that recognises the failure, or the fallback; the answer always fits the schema. */
export function explainWithRules(context: FailureContext): { rule: string; explanation: FailureExplanation } {
  const input: RuleInput = { context, reason: context.deployment.failureReason?.trim() ?? '', lines: context.logLines };
  let rule = FALLBACK_RULE;
  let explanation: FailureExplanation | null = null;
  for (const candidate of BUILTIN_RULES) {
    explanation = candidate.explain(input);
    if (explanation) {
      rule = candidate.id;
      break;
    }
  }
  explanation ??= fallbackExplanation(input);
  return { rule, explanation: failureExplanationSchema.parse({ ...explanation, commands: explanation.commands.slice(0, MAX_COMMANDS) }) };
}

/** Works offline, with no key and no model: Slipway's own failure messages, matched by rules. */
export function builtinExplainer(): FailureExplainer {
  return {
    async explain(context) {
      return explainWithRules(context).explanation;
    },
  };
}
