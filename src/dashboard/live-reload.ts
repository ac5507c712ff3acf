import { useEffect, useRef } from 'preact/hooks';
import { onChange, type Change } from './changes.js';

/** Changes that arrive together (one request's events) make one reload. */
const SETTLE_MS = 30;

/**
 * Runs `reload` when a change the screen shows arrives (or the feed says everything may be stale), whoever
 * made it. Reloads never overlap: one that arrives meanwhile runs once after, so the newest answer is the last.
 */
export function useLiveReload(shows: (change: Change) => boolean, reload: () => Promise<unknown>): void {
  const latest = useRef({ shows, reload });
  latest.current = { shows, reload };
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let running = false;
    let again = false;
    const run = async () => {
      if (running) return void (again = true);
      running = true;
      try {
        do {
          again = false;
          await latest.current.reload();
        } while (again);
      } finally {
        running = false;
      }
    };
    const unsubscribe = onChange((change) => {
      if (change !== null && !latest.current.shows(change)) return;
      clearTimeout(timer);
      timer = setTimeout(() => void run(), SETTLE_MS);
    });
    return () => {
      unsubscribe();
      clearTimeout(timer);
    };
  }, []);
}
