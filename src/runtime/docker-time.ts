/** Docker's RFC 3339 nanosecond stamp as `seconds.nanoseconds`, which sorts as text and is what `since` takes. */
export function dockerTimeKey(stamp: string): string | null {
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?Z$/.exec(stamp);
  if (!m) return null;
  return `${Math.floor(Date.parse(`${m[1]}Z`) / 1000)}.${(m[2] ?? '').padEnd(9, '0')}`;
}
