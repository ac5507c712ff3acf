import { signal } from '@preact/signals';

/** The time now, to the minute: whatever reads it (a relative time) is drawn again as each minute passes. */
export const now = signal(new Date());

let timer: ReturnType<typeof setInterval> | undefined;

/** Starts the one clock the page needs, the first time something shows a relative time. */
export function startMinuteClock(): void {
  if (timer) return;
  now.value = new Date();
  timer = setInterval(() => (now.value = new Date()), 60_000);
}
