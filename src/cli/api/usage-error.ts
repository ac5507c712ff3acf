/** A command given wrongly (or not allowed as given): `slipway: <message>` with exit code 2. */
export class UsageError extends Error {}
