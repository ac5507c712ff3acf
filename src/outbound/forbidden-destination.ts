import { DomainError } from '../../commands/shared/domain-error.js';

/** A destination the outbound policy refuses: 400 `forbidden_destination` at the API, a failure reason in a run. */
export class ForbiddenDestinationError extends DomainError {
  constructor(message: string, field: string | null = null) {
    super('forbidden_destination', message, field ? [{ path: field, message }] : []);
  }

  /** The same refusal, naming the input that gave the destination. */
  at(field: string): ForbiddenDestinationError {
    return new ForbiddenDestinationError(this.message, field);
  }
}

/** A name that does not resolve (now): not refused, but nothing to connect to either. */
export class UnresolvedDestinationError extends Error {
  override readonly name = 'UnresolvedDestinationError';
}
