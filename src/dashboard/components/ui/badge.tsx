import type { ComponentChildren } from 'preact';

export type Tone = 'success' | 'danger' | 'warning' | 'info' | 'neutral';

/** What each status means at a glance: done well, failed, needs a look, under way, or nothing to say. */
const TONES: Record<string, Tone> = {
  queued: 'neutral',
  running: 'info',
  succeeded: 'success',
  failed: 'danger',
  aborted: 'neutral',
  canceled: 'neutral',
  rolled_back: 'warning',
  active: 'success',
  idle: 'neutral',
  stopped: 'neutral',
  crashed: 'danger',
  healthy: 'success',
  unhealthy: 'danger',
  starting: 'info',
  live: 'success',
  rebuilding: 'warning',
  stale: 'warning',
  paused: 'warning',
  ok: 'success',
  failing: 'danger',
  ready: 'success',
  down: 'danger',
  drain: 'warning',
  pause: 'warning',
};
const UNDER_WAY = new Set(['running', 'starting', 'rebuilding']);

export const toneOf = (status: string): Tone => TONES[status] ?? 'neutral';

/** A status as a coloured pill with a dot; it reads as its words (`rolled back`), the colour only repeats them. */
export function Badge({ status, tone, children }: { status: string; tone?: Tone; children?: ComponentChildren }) {
  return <span class={`badge tone-${tone ?? toneOf(status)}${UNDER_WAY.has(status) ? ' pulse' : ''}`}>{children ?? status.replace(/_/g, ' ')}</span>;
}
