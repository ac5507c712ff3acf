/** A read model cannot answer for now: the client gets 503 `unavailable` (errors.ts maps every subclass). */
export class ReadModelUnavailableError extends Error {
  constructor(
    message: string,
    /** Seconds after which a retry may succeed; null when retrying alone will not help. */
    readonly retryAfterSeconds: number | null,
  ) {
    super(message);
  }
}

/** A query named the tables of a read model whose new version is still being built (after an upgrade). */
export class ReadModelRebuildingError extends ReadModelUnavailableError {
  constructor(readonly projector: string) {
    super(`the read model ${projector} is being rebuilt after an upgrade; retry in a moment`, 2);
  }
}

/** A read model parked an event of this write: the write is recorded, but that read model does not show it. */
export class WriteParkedError extends ReadModelUnavailableError {
  constructor(
    readonly projector: string,
    readonly eventId: string,
    readonly reason: string,
  ) {
    super(
      `the change was recorded, but the read model ${projector} could not apply its event ${eventId} and parked it (${reason}); ` +
        'an operator sees it in GET /api/health/parked. Do not repeat the write.',
      null,
    );
  }
}

export class RebuildRunningError extends Error {
  constructor(readonly names: readonly string[]) {
    super(`a rebuild of ${names.join(', ')} is already running`);
  }
}

/** The read models did not include a write within the deadline: the write happened, the answer cannot show it yet. */
export class ReadModelBehindError extends Error {
  constructor(readonly waitedMs: number) {
    super(`the change was recorded, but the read models did not show it within ${waitedMs / 1000} s; read it again shortly (do not repeat the write without an Idempotency-Key)`);
  }
}
