import { z } from 'zod';
import type { ImageSettings } from '../../installation-images.js';

const MAX_TEXT = 2000;
const MAX_COMMAND = 500;
export const MAX_COMMANDS = 10;

/** Trimmed, non-empty, and cut rather than refused when a model writes too much: the rest is still useful. */
const capped = (max: number) =>
  z
    .string()
    .trim()
    .min(1)
    .transform((s) => (s.length > max ? `${s.slice(0, max - 1)}…` : s));

export const failureExplanationSchema = z.object({
  summary: capped(MAX_TEXT),
  likelyCause: capped(MAX_TEXT),
  suggestedFix: capped(MAX_TEXT),
  commands: z.array(capped(MAX_COMMAND)).max(MAX_COMMANDS),
});
export type FailureExplanation = z.infer<typeof failureExplanationSchema>;

/** Everything a provider is told of a failed deployment, and nothing else. */
export interface FailureContext {
  deployment: { id: string; failureReason: string | null; detectedBuildMethod: string | null };
  service: {
    kind: 'source' | 'image' | 'worker' | 'static' | 'database';
    repoUrl: string;
    dockerImage: string | null;
    branch: string;
    rootDir: string | null;
    buildMethod: string;
    dockerfilePath: string | null;
    installCommand: string | null;
    buildCommand: string | null;
    startCommand: string | null;
    internalPort: number;
    runtimeMode: string;
    engine: string | null;
  };
  /** Names only, never values. */
  variableNames: string[];
  /** The last lines of the deployment log, already redacted by the caller. */
  logLines: string[];
  /** The installation's image settings in force (never a secret), so an explanation can name the one to change. */
  imageSettings?: ImageSettings;
}

export class AiProviderError extends Error {
  constructor(
    message: string,
    readonly kind: 'unreachable' | 'refused' | 'malformed' | 'timeout',
  ) {
    super(message);
    this.name = 'AiProviderError';
  }
}

const TRUNCATED = ' … [truncated]';

/** The longest start of `line` within `bytes` UTF-8 bytes, never splitting a character. */
function cutToBytes(line: string, bytes: number): string {
  if (Buffer.byteLength(line) <= bytes) return line;
  const room = bytes - Buffer.byteLength(TRUNCATED);
  if (room <= 0) return '';
  return Buffer.from(line).subarray(0, room).toString('utf8').replace(/\uFFFD+$/, '') + TRUNCATED;
}

/**
 * The last lines within both bounds, counting a newline after each. The failure is at the end of a log, so the
 * newest lines are kept; when even the newest line alone is too long, its start is kept, cut to the byte bound.
 */
export function boundLogLines(lines: readonly string[], { maxLines = 200, maxBytes = 16_000 }: { maxLines?: number; maxBytes?: number } = {}): string[] {
  const kept: string[] = [];
  let bytes = 0;
  for (let i = lines.length - 1; i >= 0 && kept.length < maxLines; i--) {
    const line = lines[i]!;
    const size = Buffer.byteLength(line) + 1;
    if (bytes + size > maxBytes) {
      if (kept.length === 0) {
        const cut = cutToBytes(line, maxBytes - 1);
        if (cut) kept.push(cut);
      }
      break;
    }
    kept.push(line);
    bytes += size;
  }
  return kept.reverse();
}
