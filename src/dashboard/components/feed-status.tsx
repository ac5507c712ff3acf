import { feedNotice, feedState } from '../changes.js';
import '../styles/feed.css';

/** Whether what the page shows follows the server: said when it does not, and when it caught up again. */
export function FeedStatus() {
  const state = feedState.value;
  const text = state === 'reconnecting' ? 'Connection lost — reconnecting…' : feedNotice.value;
  return (
    <p class={`feed-status feed-${state}`} role="status">
      {text}
    </p>
  );
}
