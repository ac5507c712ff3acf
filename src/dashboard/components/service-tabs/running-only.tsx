import type { ComponentChildren } from 'preact';
import { EmptyState } from '../ui/empty-state.js';

/** What needs the database running (its data, its console), or a word that it does not run. */
export function RunningOnly({ running, children }: { running: boolean; children: ComponentChildren }) {
  return running ? <>{children}</> : <EmptyState title="The database is not running">Deploy it from the Overview tab.</EmptyState>;
}
