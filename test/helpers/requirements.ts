/**
 * Under the README's test command (`npm test` sets SLIPWAY_TEST_STRICT=1) every requirement must be met:
 * a missing engine, image or server fails the run instead of quietly skipping what it guards.
 */
export const strict = process.env.SLIPWAY_TEST_STRICT === '1';

/** `reason` (why the tests cannot run here) as tap's `skip` option, or a failure under `npm test`. */
export function required(reason: string | false): string | false {
  if (reason && strict) throw new Error(`required under npm test, but: ${reason}`);
  return reason;
}
