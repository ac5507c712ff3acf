import { signal } from '@preact/signals';
import type { components } from '../shared/api-types.js';
import { loadSession } from './session-actions.js';

export type Change = components['schemas']['Change'];

/** How the page stands with the server's change feed; 'reconnecting' after a loss, which EventSource retries itself. */
export const feedState = signal<'connecting' | 'live' | 'reconnecting'>('connecting');
/** A short note after a lost connection came back and caught up. */
export const feedNotice = signal<string | null>(null);

/** Hears each change; null: the read models changed wholesale, everything shown may be stale. */
export type ChangeListener = (change: Change | null) => void;
const listeners = new Set<ChangeListener>();
let source: EventSource | null = null;

const tellAll = (change: Change | null) => {
  for (const listener of listeners) listener(change);
};

/**
 * Opens the one feed every screen updates from (`GET /api/changes`, through the session cookie). EventSource
 * reconnects by itself and sends the last event id back, so the server first tells what was missed.
 */
export function openChangeFeed(): void {
  if (source) return;
  const feed = new EventSource('/api/changes');
  source = feed;
  feed.addEventListener('ready', () => {
    if (feedState.value === 'reconnecting') {
      feedNotice.value = 'Reconnected: caught up with what changed meanwhile.';
      setTimeout(() => (feedNotice.value = null), 5_000);
    }
    feedState.value = 'live';
  });
  feed.addEventListener('change', (e) => tellAll(JSON.parse((e as MessageEvent<string>).data) as Change));
  feed.addEventListener('reset', () => tellAll(null));
  // The session or its key ended: the server says so and closes; a refused reconnection closes the source.
  feed.addEventListener('end', () => {
    closeChangeFeed();
    void loadSession();
  });
  feed.onerror = () => {
    if (feed.readyState === EventSource.CLOSED) {
      closeChangeFeed();
      void loadSession();
    } else feedState.value = 'reconnecting';
  };
}

export function closeChangeFeed(): void {
  source?.close();
  source = null;
  feedState.value = 'connecting';
}

export function onChange(listener: ChangeListener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
