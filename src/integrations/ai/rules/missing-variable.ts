import { appOutputOf, quote } from './log-lines.js';
import { redeploy, setVariable, setVariableCli } from './commands.js';
import type { BuiltinRule } from './rule.js';

// An environment variable's name as apps spell them: upper case, two characters or more.
const NAME = String.raw`[A-Z][A-Z0-9_]*[A-Z0-9]`;
const Q = `['"\`]?`;
/** Words matched in any case, the variable's name never (a lower-case name is the code's, not the environment's). */
const anyCase = (words: string) => words.replace(/[a-z]/g, (c) => `[${c}${c.toUpperCase()}]`);
const ENV = anyCase(String.raw`(?:env(?:ironment)?(?: variable)?|env var|config(?:uration)? variable)s?`);

/** How apps say a variable is missing, each with the language or library that says it so. */
const MISSING: { pattern: RegExp; says: string }[] = [
  { pattern: new RegExp(String.raw`\bKeyError: ['"](${NAME})['"]`), says: "Python's os.environ[...] found no such variable" },
  { pattern: new RegExp(String.raw`\bReferenceError: (${NAME}) is not defined\b`), says: 'JavaScript found no such name: the code uses it as a global rather than reading process.env' },
  { pattern: new RegExp(String.raw`\b${ENV} ${Q}(${NAME})${Q},? (?:is )?(?:not set|not defined|unset|missing|required|empty|must be set|undefined)\b`), says: 'the app checks it at start' },
  { pattern: new RegExp(String.raw`\b${anyCase('(?:missing|required|undefined|unset)(?: required)?')} ${ENV}:? ${Q}(${NAME})${Q}`), says: 'the app checks it at start' },
  { pattern: new RegExp(String.raw`(?:^|[\s:'"\`])${Q}(${NAME})${Q} (?:environment variable |env var )?(?:is not set|is not defined|is required|must be set|is missing|is undefined|not set)\b`), says: 'the app checks it at start' },
];

const COPES = /\b(?:using|defaults? to|defaulting|falling back|fall back)\b/i;

interface Missing {
  name: string;
  line: string;
  says: string;
}

/** The last variable the app's own output says is missing. */
function missingVariable(output: readonly string[]): Missing | null {
  for (let i = output.length - 1; i >= 0; i--) {
    const line = output[i]!;
    // "PORT not set, using 3000": the app copes, so that is not why it failed.
    if (COPES.test(line)) continue;
    for (const { pattern, says } of MISSING) {
      const m = line.match(pattern);
      if (m) return { name: m[1]!, line, says };
    }
  }
  return null;
}

export const missingVariableRule: BuiltinRule = {
  id: 'missing-variable',
  explain(input) {
    const found = missingVariable(appOutputOf(input));
    if (!found) return null;
    const { name, line, says } = found;
    const isSet = input.context.variableNames.includes(name);
    const failure = input.reason ? ` The deployment then failed with ${quote(input.reason.split('\n')[0]!)}.` : '';
    const deploy = ['slipway deploy "$SERVICE_ID"'];
    if (isSet) {
      return {
        summary: `The app stopped on the variable ${name}: it logged ${quote(line)}, although the service sets ${name}.`,
        likelyCause: `The app's output says ${quote(line)} (${says}), yet ${name} is among the service's variables. Either its value is empty (a reference \${service.VARIABLE} to a variable that is empty), the app reads it under another name or case, or it reads it during the build, where service variables are not given.${failure}`,
        suggestedFix: `Check the value of ${name} on the service (the variables list shows which are set; a reference shows what it resolves to in the service's overview) and that the app reads exactly ${name} from its environment at start, then deploy again.`,
        commands: ['slipway variables "$SERVICE_ID" list', setVariableCli(name, '<value>'), ...deploy],
      };
    }
    return {
      summary: `The app needs the variable ${name}, which the service does not set: it logged ${quote(line)}.`,
      likelyCause: `The app's output says ${quote(line)}: ${says}. The service's variables${input.context.variableNames.length > 0 ? ` are ${input.context.variableNames.join(', ')}` : ' are empty'}; ${name} is not among them.${failure}`,
      suggestedFix: `Set ${name} on the service, then deploy again. If another service of this project provides it (a database's DATABASE_URL, say), set it as a reference such as \${postgres.${name}} so it follows that service.`,
      commands: [setVariableCli(name, '<value>'), ...deploy, setVariable(name, '<value>'), redeploy],
    };
  },
};
