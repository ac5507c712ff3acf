import { failureExplanationSchema, MAX_COMMANDS, type FailureExplanation } from './explanation.js';

// Bounds on the work spent on a rambling answer: no real answer is this long or has this many braces before its object.
const MAX_TEXT = 100_000;
const MAX_OBJECT_STARTS = 50;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The end of the JSON object that opens at `start` (braces counted outside strings), or -1. */
function objectEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i;
  }
  return -1;
}

/** Texts that may hold the object, most likely first: the whole answer, fenced blocks, then each balanced {...}. */
function* candidates(text: string): Generator<string> {
  yield text;
  for (const fence of text.matchAll(/```[a-zA-Z]*[ \t]*\r?\n?([\s\S]*?)```/g)) yield fence[1]!;
  let starts = 0;
  for (let i = text.indexOf('{'); i !== -1 && starts < MAX_OBJECT_STARTS; i = text.indexOf('{', i + 1), starts++) {
    const end = objectEnd(text, i);
    if (end !== -1) yield text.slice(i, end + 1);
  }
}

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Forgives what a model commonly gets slightly wrong: a wrapping key, no commands, too many commands. */
function normalise(value: unknown): unknown {
  const inner = isRecord(value) && isRecord(value.explanation) ? value.explanation : value;
  if (!isRecord(inner)) return inner;
  const commands = inner.commands === undefined || inner.commands === null ? [] : inner.commands;
  return { ...inner, commands: Array.isArray(commands) ? commands.slice(0, MAX_COMMANDS) : commands };
}

/** The explanation in a model's answer (plain JSON, fenced, or with prose around it), or null when there is none. */
export function parseExplanation(text: string): FailureExplanation | null {
  const bounded = text.slice(0, MAX_TEXT).trim();
  for (const candidate of candidates(bounded)) {
    const parsed = failureExplanationSchema.safeParse(normalise(tryParse(candidate.trim())));
    if (parsed.success) return parsed.data;
  }
  return null;
}
