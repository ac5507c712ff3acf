import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { LogLine } from '../../commands/shared/log-chunk.js';
import { printable } from '../../commands/shared/printable.js';
import { currentSchemaVersion } from '../../commands/upcasters.js';
import type { EventMetadata, EventStore } from '../eventstore/port.js';

const MAX_LINE = 4096;
const MAX_LINES = 50_000;
const FLUSH_MS = 40;
const MAX_CHUNK = 500;

// A chunk that cannot be stored is tried again after each of these pauses, with the same event id (a try
// that was stored but whose answer was lost is then a duplicate, not a second copy).
const RETRY_DELAYS_MS = [100, 300, 1000, 3000];
const MAX_REASON = 300;

// Half of a surrogate pair on its own is not text: Postgres refuses it in jsonb, and with it the whole chunk.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const wellFormed = (line: string) => line.replace(LONE_SURROGATE, '\uFFFD');
const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/** At most MAX_LINE UTF-16 units, cut between code points, never inside a surrogate pair. */
function truncated(line: string): string {
  if (line.length <= MAX_LINE) return line;
  const end = isHighSurrogate(line.charCodeAt(MAX_LINE - 1)) ? MAX_LINE - 1 : MAX_LINE;
  return `${line.slice(0, end)} … [line truncated]`;
}

/** Where a log's chunks go: its stream and the type of its events (`DeploymentLogAppended` on `deploymentlog-<id>`, …). */
export interface LogTarget {
  streamId: string;
  eventType: string;
}

/**
 * Collects a run's output (a deployment's, a job run's) and appends it in chunks to its log stream, redacted: a
 * line after a quiet spell at once, a steady stream at most every FLUSH_MS (few events either way).
 */
export class ChunkedLog {
  private buffer: LogLine[] = [];
  private timer: NodeJS.Timeout | null = null;
  private chain: Promise<void> = Promise.resolve();
  private truncated = false;
  private lastFlushAt = 0;

  constructor(
    private readonly store: EventStore,
    private readonly target: LogTarget,
    private redact: (line: string) => string,
    /** Who writes the log, and the request and event it follows from. */
    private readonly metadata: EventMetadata,
    /** Id of the next line: 1, or after the lines an earlier run of the deployer wrote. */
    private next = 1,
    /** Told of lines that could not be stored even as a note in the log itself (the store is down). */
    private readonly onLost: (count: number, error: unknown) => void = () => undefined,
  ) {}

  /** Secrets learnt during the run (decrypted variables) are redacted from then on. */
  setRedactor(redact: (line: string) => string) {
    this.redact = redact;
  }

  write(line: string, stream: LogLine['stream'] = 'stdout') {
    // Past the cap only Slipway's own lines are kept, so the log still says how the run ended.
    if (stream !== 'system' && this.next + this.buffer.length > MAX_LINES) {
      if (!this.truncated) this.buffer.push({ line: `[log truncated after ${MAX_LINES} lines]`, stream: 'system', at: new Date().toISOString() });
      this.truncated = true;
      return;
    }
    // Control characters go first, so none can split a secret and slip it past the redaction.
    this.buffer.push({ line: truncated(wellFormed(this.redact(printable(line)))), stream, at: new Date().toISOString() });
    if (this.buffer.length >= MAX_CHUNK) this.flush();
    // The first line after a quiet spell goes at once (with whatever else this chunk of output holds); a
    // steady stream goes every FLUSH_MS, so a busy build still makes few events.
    else this.timer ??= setTimeout(() => this.flush(), Math.max(0, this.lastFlushAt + FLUSH_MS - Date.now()));
  }

  /** A line as this log would store it (secrets redacted, control characters removed): for a reason quoting the output. */
  redacted(line: string): string {
    return this.redact(printable(line));
  }

  system(line: string) {
    this.write(line, 'system');
  }

  /** Resolves once everything written so far is in the event store. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const lines = this.buffer;
    this.buffer = [];
    if (lines.length > 0) {
      this.lastFlushAt = Date.now();
      const first = this.next;
      this.next += lines.length;
      this.chain = this.chain.then(() => this.append(first, lines));
    }
    return this.chain;
  }

  /**
   * One writer per log at a time, so the order of appends is the order of lines. A chunk the store keeps
   * refusing is replaced by a line saying how many lines were lost and why; the run itself goes on either way.
   */
  private async append(first: number, lines: LogLine[]) {
    const id = randomUUID();
    let failure: unknown;
    for (const delay of [0, ...RETRY_DELAYS_MS]) {
      if (delay > 0) await sleep(delay);
      try {
        await this.appendChunk(id, first, lines);
        return;
      } catch (error) {
        failure = error;
      }
    }
    const reason = printable(failure instanceof Error ? failure.message : String(failure)).slice(0, MAX_REASON);
    const note: LogLine = { line: wellFormed(this.redact(`[slipway] ${lines.length} log lines could not be stored: ${reason}`)), stream: 'system', at: new Date().toISOString() };
    await this.appendChunk(randomUUID(), first, [note]).catch((error: unknown) => this.onLost(lines.length, error));
  }

  private async appendChunk(id: string, first: number, lines: LogLine[]) {
    await this.store.append(
      this.target.streamId,
      [{ id, type: this.target.eventType, schemaVersion: currentSchemaVersion(this.target.eventType), data: { first, lines }, metadata: this.metadata }],
      'any',
    );
  }
}
