import type { RuleInput } from './rule.js';

const MAX_QUOTE = 300;

/** A log line or reason as quoted in an explanation: trimmed, and short. */
export const quote = (line: string) => {
  const text = line.trim();
  return `"${text.length > MAX_QUOTE ? `${text.slice(0, MAX_QUOTE)}…` : text}"`;
};

export function find(lines: readonly string[], pattern: RegExp): RegExpMatchArray | null {
  for (const line of lines) {
    const match = line.match(pattern);
    if (match) return match;
  }
  return null;
}

/** The pattern in the reason, else in the log. */
export const inReasonOrLog = ({ reason, lines }: RuleInput, pattern: RegExp) => reason.match(pattern) ?? find(lines, pattern);

/** Lines Slipway writes itself (src/processes/deployment/, its probes) and the classic builder's step bookkeeping. */
const OWN_LINE =
  /^(Deployment \S+ started|Deployment (failed|aborted|succeeded)\b|Cloning \S+ \(branch |Checked out commit |Checking out pushed commit |Building with |packbuilder: |Built image |Image \S+ is |Pulling \S+$|Could not pull \S+ \(|Started container |Health check( \d+\/\d+)?: |Not answering yet: |The app answers|The worker is up|The release misbehaved|Draining |Retiring |Step \d+\/\d+ : | ---> |Removing intermediate container |Successfully (built|tagged) |  (FROM|WORKDIR|COPY|RUN|ENV|EXPOSE|CMD) )/;
export const isOwnLine = (line: string) => OWN_LINE.test(line);
// npm's bookkeeping around the line that matters.
const NOISE = /^npm (ERR!|error)( (code|errno|syscall|path|command|cwd|signal|workspace|location|A complete log|Log files were not written|You can rerun)\b|\s*$)/;
const STRONG_ERROR = [
  /^\s*(?:[\w$]+\.)*(?:[A-Z]\w*)?(?:Error|Exception)(?: \[\w+\])?: \S/,
  /^\s*(?:npm (?:ERR!|error)|error|ERROR|Error|fatal|FATAL|panic|E):?\s+\S/,
  /\berror(?:\[\w+\])?(?: [A-Z]+\d+)?:\s*\S/i,
  /^\S+\.\w+:\d+:\d+:\s/,
];
const WEAK_ERROR = /\b(error|failed|failure|fatal|exception|cannot|can't|could not|unable to|not found|no such file|denied|refused|undefined|missing)\b/i;
const isStrong = (line: string) => STRONG_ERROR.some((p) => p.test(line));

const CONTAINER_STARTED = /^Started container /;

/** The lines of the last stage that ran: the last build step, or the container's output once it started. */
export function lastStage(lines: readonly string[]): readonly string[] {
  for (let i = lines.length - 1; i >= 0; i--) {
    if (/^(Step \d+\/\d+ : |Started container )/.test(lines[i]!)) return lines.slice(i + 1);
  }
  return lines;
}

/** What the app itself wrote after its container started: no line of Slipway's, no blank line. */
export function appOutput(lines: readonly string[]): string[] {
  let from = -1;
  for (let i = lines.length - 1; i >= 0 && from < 0; i--) if (CONTAINER_STARTED.test(lines[i]!)) from = i;
  if (from < 0) return [];
  return lines.slice(from + 1).filter((l) => l.trim() !== '' && !OWN_LINE.test(l));
}

const meaningful = (lines: readonly string[]) => lines.filter((l) => l.trim() !== '' && !OWN_LINE.test(l) && !NOISE.test(l));

function pickErrorLine(lines: readonly string[]): string | null {
  const candidates = meaningful(lines);
  return candidates.find(isStrong) ?? candidates.find((l) => WEAK_ERROR.test(l)) ?? null;
}

/** The line that best says what went wrong: the first error-like line of the last stage, else of the whole log. */
export function errorLine(lines: readonly string[]): string | null {
  return pickErrorLine(lastStage(lines)) ?? pickErrorLine(lines);
}

/** The last line the app or build wrote (not Slipway's own), for failures that end in silence. */
export function lastOutputLine(lines: readonly string[]): string | null {
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!;
    if (line.trim() !== '' && !OWN_LINE.test(line)) return line;
  }
  return null;
}

export interface AppExcerpt {
  /** The line that says most: the app's last error line, else its last line. */
  line: string;
  /** That line with up to two of the app's lines before it (a traceback's frame), in order. */
  lines: string[];
}

/**
 * The app's own output: what a release that failed after going live wrote last (Slipway puts it in the
 * reason, src/processes/deployment/release-watch.ts), else what it wrote after its container started.
 */
export function appOutputOf({ reason, lines }: RuleInput): string[] {
  const watched = reason.match(/; its last output:\n([\s\S]*?)(?: — rolled back to release v\d+)?$/);
  if (watched) return watched[1]!.split('\n').filter((l) => l.trim() !== '');
  return appOutput(lines);
}

/**
 * Where a running app says what went wrong. The last error counts, not the first: an app often logs a
 * transient complaint (a database not up yet) long before the one it stops or fails on.
 */
export function appExcerpt(input: RuleInput): AppExcerpt | null {
  const output = meaningful(appOutputOf(input));
  if (output.length === 0) return null;
  let at = output.findLastIndex(isStrong);
  if (at < 0) at = output.findLastIndex((l) => WEAK_ERROR.test(l));
  if (at < 0) at = output.length - 1;
  return { line: output[at]!, lines: output.slice(Math.max(0, at - 2), at + 1) };
}

/** What an app that stopped wrote last: its last three lines, the one that says most being the last error among them. */
export function lastWords(input: RuleInput): AppExcerpt | null {
  const tail = meaningful(appOutputOf(input)).slice(-3);
  if (tail.length === 0) return null;
  const line = tail.findLast(isStrong) ?? tail.findLast((l) => WEAK_ERROR.test(l)) ?? tail.at(-1)!;
  return { line, lines: tail };
}

/** The excerpt's lines, quoted and joined, for a sentence. */
export const quoteAll = (lines: readonly string[]) => lines.map(quote).join(', then ');
