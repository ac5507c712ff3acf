import { setTimeout as sleep } from 'node:timers/promises';
import type { ContainerRuntime } from '../runtime/container-runtime.js';

export interface PostgresImportPlan {
  /** Idempotency: carries the import id, so a retried run finds (and removes) its own container. */
  name: string;
  /** The target's own image, so pg_dump and pg_restore match its server. */
  image: string;
  network: string;
  labels: Record<string, string>;
  sourceUrl: string;
  /** The target as the project network reaches it (its slug). */
  targetUrl: string;
}

/**
 * `pg_dump -Fc | pg_restore --no-owner` in a helper container of the target's image on the project network,
 * so the source may be an outside host or another service of the project by its name. Both URLs reach the
 * tools as environment variables, never as arguments. Resolves when it exits 0; rejects with its stderr.
 */
export async function importPostgres(runtime: ContainerRuntime, plan: PostgresImportPlan, signal: AbortSignal): Promise<void> {
  await runtime.remove(plan.name, 0);
  await runtime.run({
    name: plan.name,
    image: plan.image,
    env: { SOURCE_URL: plan.sourceUrl, TARGET_URL: plan.targetUrl },
    labels: plan.labels,
    network: plan.network,
    aliases: [],
    internalPort: null,
    publish: false,
    command: ['bash', '-c', 'set -o pipefail; pg_dump -Fc --no-owner --dbname "$SOURCE_URL" | pg_restore --no-owner --no-acl --dbname "$TARGET_URL"'],
  });
  try {
    for (;;) {
      signal.throwIfAborted();
      const state = await runtime.inspect(plan.name, null);
      if (!state) throw new Error('the import container disappeared');
      if (!state.running) {
        if (state.exitCode === 0) return;
        const lines: string[] = [];
        for await (const l of runtime.logs(plan.name, { follow: false, tail: 20 })) lines.push(l.line);
        throw new Error(`pg_dump | pg_restore exited with ${state.exitCode}: ${lines.join('\n').trim() || 'no output'}`);
      }
      await sleep(250);
    }
  } finally {
    await runtime.remove(plan.name, 1).catch(() => undefined);
  }
}
