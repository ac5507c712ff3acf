import { setTimeout as sleep } from 'node:timers/promises';

/**
 * An append that ends a run (a deployment, a restore), retried with backoff: a run must not stay open
 * because the store hiccuped once. If every try fails, the caller's reconcile ends it later.
 */
export async function recorded<T>(append: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await append();
    } catch (error) {
      if (attempt >= 4) throw error;
      await sleep(200 * 2 ** attempt);
    }
  }
}
