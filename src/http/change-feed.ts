import { listChanges, type ChangeRow } from '../../projections/change-queries.js';
import type { ProjectionRunner } from '../../projections/runner.js';
import type { SqlExecutor } from '../db/sql-client.js';

/** What a subscriber hears: the changes of one applied batch, or that the read models changed wholesale. */
export type ChangeNews = { changes: ChangeRow[] } | { reset: string };

/**
 * Tells every open change feed of each batch the read models applied, once they show it: one query per batch
 * whatever the number of feeds, none while no feed is open. Batches are told in log order.
 */
export class ChangeFeed {
  private subscribers = new Set<(news: ChangeNews) => void>();
  private turn: Promise<void> = Promise.resolve();
  private epoch: number;

  constructor(
    private readonly db: SqlExecutor,
    private readonly runner: ProjectionRunner,
    private readonly onError: (error: unknown) => void,
  ) {
    this.epoch = runner.epoch;
    runner.onApplied((batch, after) => {
      if (this.subscribers.size === 0) return;
      if (batch.every((e) => e.streamId.startsWith('deploymentlog-'))) return;
      const upTo = batch[batch.length - 1]!.position;
      this.turn = this.turn.then(() => this.tell(after, upTo, batch.length)).catch(this.onError);
    });
  }

  subscribe(fn: (news: ChangeNews) => void): () => void {
    this.subscribers.add(fn);
    return () => this.subscribers.delete(fn);
  }

  private async tell(after: string | null, upTo: string, limit: number) {
    // A rebuild swapped the read models in: what a screen shows may have changed anywhere.
    const news: ChangeNews =
      this.epoch !== this.runner.epoch ? { reset: 'the read models were rebuilt' } : { changes: await listChanges(this.db, { after, upTo, limit }) };
    this.epoch = this.runner.epoch;
    for (const fn of this.subscribers) fn(news);
  }
}
