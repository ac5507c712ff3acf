import type { AppendResult, ExpectedRevision, NewEvent } from './port.js';

export interface AppendRequest {
  streamId: string;
  events: NewEvent[];
  expected: ExpectedRevision;
}

/** Each request's own result or refusal, in the order given. */
export type BatchOutcome = (AppendResult | Error)[];

interface Queued extends AppendRequest {
  resolve: (result: AppendResult) => void;
  reject: (error: unknown) => void;
}

/** Enough to keep one transaction short; more wait for the next one. */
const MAX_BATCH = 64;

/**
 * Group commit: appends made while one transaction is being written go together in the next one, so a
 * burst pays for one commit instead of one each. Requests keep their order (appends to one stream made
 * one after another stay in that order). A transaction that fails as a whole (an error raised inside it,
 * not a refusal) is written again one request at a time, so each gets its own answer.
 */
export class AppendBatcher {
  private queue: Queued[] = [];
  private writing = false;

  constructor(
    private readonly writeOne: (request: AppendRequest) => Promise<AppendResult>,
    private readonly writeMany: (requests: readonly AppendRequest[]) => Promise<BatchOutcome>,
  ) {}

  append(request: AppendRequest): Promise<AppendResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ ...request, resolve, reject });
      if (!this.writing) void this.drain();
    });
  }

  private async drain() {
    this.writing = true;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, MAX_BATCH);
      const outcomes = batch.length > 1 ? await this.writeMany(batch).catch(() => null) : null;
      if (outcomes) {
        batch.forEach((request, i) => {
          const outcome = outcomes[i]!;
          if (outcome instanceof Error) request.reject(outcome);
          else request.resolve(outcome);
        });
        continue;
      }
      for (const request of batch) await this.writeOne(request).then(request.resolve, request.reject);
    }
    this.writing = false;
  }
}
