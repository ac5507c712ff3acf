const WIDTH = 20;

/** Two unsigned integers packed so that text order equals numeric order. */
export function encodePosition(major: bigint | string, minor: bigint | string): string {
  return `${String(major).padStart(WIDTH, '0')}-${String(minor).padStart(WIDTH, '0')}`;
}

export function decodePosition(position: string): [bigint, bigint] {
  const match = /^(\d{1,20})-(\d{1,20})$/.exec(position);
  if (!match) throw new RangeError(`not a position: ${position}`);
  return [BigInt(match[1]!), BigInt(match[2]!)];
}

export function isPosition(value: string): boolean {
  return /^\d{20}-\d{20}$/.test(value);
}

/** The earliest of several checkpoints; null (the start of the log) comes before any position. */
export function earliest(positions: readonly (string | null)[]): string | null {
  return positions.reduce<string | null>((low, p) => (p === null || (low !== null && p < low) ? p : low), positions[0] ?? null);
}
