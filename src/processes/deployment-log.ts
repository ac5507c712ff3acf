import { randomUUID } from 'node:crypto';
import { LOG_CATEGORY, type LogLine } from '../../commands/deployment/events.js';
import { printable } from '../../commands/shared/printable.js';
import { currentSchemaVersion } from '../../commands/upcasters.js';
import type { EventMetadata, EventStore } from '../eventstore/port.js';

const MAX_LINE = 4096;
const MAX_LINES = 50_000;
const FLUSH_MS = 40;
const MAX_CHUNK = 500;

const truncated = (line: string) => (line.length > MAX_LINE ? `${line.slice(0, MAX_LINE)} … [line truncated]` : line);

/**
 * Collects a deployment's output and appends it in chunks to `deploymentlog-<id>`, redacted, at most
 * every few tens of milliseconds: few events, and a line reaches the stream readers quickly.
 */
export class DeploymentLog {
  private buffer: LogLine[] = [];
  private timer: NodeJS.Timeout | null = null;
  private chain: Promise<void> = Promise.resolve();
  private truncated = false;

  constructor(
    private readonly store: EventStore,
    private readonly deploymentId: string,
    private redact: (line: string) => string,
    /** Who writes the log, and the request and event it follows from. */
    private readonly metadata: EventMetadata,
    /** Id of the next line: 1, or after the lines an earlier run of the deployer wrote. */
    private next = 1,
  ) {}

  /** Secrets learnt during the run (decrypted variables) are redacted from then on. */
  setRedactor(redact: (line: string) => string) {
    this.redact = redact;
  }

  write(line: string, stream: LogLine['stream'] = 'stdout') {
    // Past the cap only Slipway's own lines are kept, so the log still says how the deployment ended.
    if (stream !== 'system' && this.next + this.buffer.length > MAX_LINES) {
      if (!this.truncated) this.buffer.push({ line: `[log truncated after ${MAX_LINES} lines]`, stream: 'system', at: new Date().toISOString() });
      this.truncated = true;
      return;
    }
    // Control characters go first, so none can split a secret and slip it past the redaction.
    this.buffer.push({ line: truncated(this.redact(printable(line))), stream, at: new Date().toISOString() });
    if (this.buffer.length >= MAX_CHUNK) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), FLUSH_MS);
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
      const first = this.next;
      this.next += lines.length;
      this.chain = this.chain.then(() => this.append(first, lines));
    }
    return this.chain;
  }

  private async append(first: number, lines: LogLine[]) {
    // One writer per deployment at a time, so the order of appends is the order of lines.
    await this.store
      .append(
        `${LOG_CATEGORY}-${this.deploymentId}`,
        [
          {
            id: randomUUID(),
            type: 'DeploymentLogAppended',
            schemaVersion: currentSchemaVersion('DeploymentLogAppended'),
            data: { first, lines },
            metadata: this.metadata,
          },
        ],
        'any',
      )
      // A chunk that cannot be stored must not stop the deployment itself.
      .catch(() => undefined);
  }
}
