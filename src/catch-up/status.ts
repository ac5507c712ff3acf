import type { Pause } from './pause.js';

/** A follower of the log as health shows it. */
export interface FollowerStatus {
  name: string;
  position: string | null;
  state: 'running' | 'paused';
  /** The database fault it is paused on, and since when. */
  error: string | null;
  pausedSince: Date | null;
}

export function statusOf(name: string, position: string | null, pause: Pause | null): FollowerStatus {
  const held = pause?.holds.includes(name) ? pause : null;
  return { name, position, state: held ? 'paused' : 'running', error: held?.error ?? null, pausedSince: held?.since ?? null };
}
