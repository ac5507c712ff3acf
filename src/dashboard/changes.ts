import { effect, signal } from '@preact/signals';
import type { components } from '../shared/api-types.js';
import { pageVisible } from './page-visible.js';
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
/** Signed in: the feed should be open whenever the page shows. */
let wanted = false;
/** The last change heard: a feed opened again goes on after it (`after=`), so nothing is missed. */
let lastId: string | null = null;

const tellAll = (change: Change | null) => {
  for (const listener of listeners) listener(change);
};

/**
 * Opens the one feed every screen updates from (`GET /api/changes`, through the session cookie), while the page
 * shows. EventSource reconnects by itself and sends the last event id back, so the server first tells what was
 * missed; a feed closed while the page was hidden opens again after the last change it heard.
 */
export function openChangeFeed(): void {
  wanted = true;
  if (source || !pageVisible.value) return;
  const feed = new EventSource(lastId ? `/api/changes?after=${encodeURIComponent(lastId)}` : '/api/changes');
  source = feed;
  feed.addEventListener('ready', (e) => {
    lastId = (e as MessageEvent<string>).lastEventId || lastId;
    if (feedState.value === 'reconnecting') {
      feedNotice.value = 'Reconnected: caught up with what changed meanwhile.';
      setTimeout(() => (feedNotice.value = null), 5_000);
    }
    feedState.value = 'live';
  });
  feed.addEventListener('change', (e) => {
    const message = e as MessageEvent<string>;
    lastId = message.lastEventId || lastId;
    tellAll(JSON.parse(message.data) as Change);
  });
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

function closeSource(): void {
  source?.close();
  source = null;
}

export function closeChangeFeed(): void {
  wanted = false;
  lastId = null;
  closeSource();
  feedState.value = 'connecting';
}

// Hidden: the connection goes back to the browser's pool; shown again: the feed catches up from where it was.
effect(() => {
  if (!pageVisible.value) closeSource();
  else if (wanted) openChangeFeed();
});

export function onChange(listener: ChangeListener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
