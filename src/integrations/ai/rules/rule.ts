import type { FailureContext, FailureExplanation } from '../explanation.js';

export interface RuleInput {
  context: FailureContext;
  /** The recorded failure reason, '' when there is none. */
  reason: string;
  lines: readonly string[];
}

export interface BuiltinRule {
  readonly id: string;
  /** The explanation when the rule recognises the failure, else null. */
  explain(input: RuleInput): FailureExplanation | null;
}
