import { buildCommandFailed, buildTimeout } from './rules/build.js';
import { lockfileMismatch, missingDockerfile, missingStart, nothingToBuild, staticOutputMissing } from './rules/build-setup.js';
import { crashedOnStart } from './rules/crash.js';
import { cloneTimeout, gitAuthentication, gitBranchMissing, gitHostUnresolved, rootDirMissing } from './rules/git.js';
import { healthCheckAnswered } from './rules/health-gate.js';
import { imagePull } from './rules/image-pull.js';
import { outOfMemory } from './rules/memory.js';
import { missingVariableRule } from './rules/missing-variable.js';
import { dockerUnreachable, interrupted, networkPoolsExhausted, unresolvedReference } from './rules/platform.js';
import { portNotOpened } from './rules/port.js';
import type { BuiltinRule } from './rules/rule.js';

export type { BuiltinRule, RuleInput } from './rules/rule.js';
export { errorLine, quote } from './rules/log-lines.js';
export { fallbackExplanation } from './rules/fallback.js';

/**
 * Most specific first: the first rule that recognises the failure explains it (a lockfile error also fails the
 * build; a memory kill ends the container; a variable the app names as missing is why it crashed or answered 5xx).
 */
export const BUILTIN_RULES: readonly BuiltinRule[] = [
  interrupted,
  dockerUnreachable,
  networkPoolsExhausted,
  unresolvedReference,
  gitHostUnresolved,
  gitAuthentication,
  gitBranchMissing,
  cloneTimeout,
  rootDirMissing,
  missingDockerfile,
  nothingToBuild,
  lockfileMismatch,
  missingStart,
  outOfMemory,
  missingVariableRule,
  portNotOpened,
  healthCheckAnswered,
  crashedOnStart,
  imagePull,
  buildTimeout,
  staticOutputMissing,
  buildCommandFailed,
];
