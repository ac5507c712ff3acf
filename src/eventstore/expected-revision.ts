import { WrongExpectedRevisionError, type ExpectedRevision } from './port.js';

/** Shared by adapters that check revisions themselves. `current` is -1 for a missing stream. */
export function assertExpectedRevision(streamId: string, expected: ExpectedRevision, current: number): void {
  const actual = current < 0 ? 'no_stream' : current;
  const ok =
    expected === 'any' ||
    (expected === 'no_stream' && current < 0) ||
    (expected === 'stream_exists' && current >= 0) ||
    (typeof expected === 'number' && expected === current);
  if (!ok) throw new WrongExpectedRevisionError(streamId, expected, actual);
}
