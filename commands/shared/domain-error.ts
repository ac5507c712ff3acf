export type DomainErrorCode = 'validation_failed' | 'not_found' | 'conflict' | 'forbidden' | 'forbidden_destination' | 'invitation_gone';

export interface ErrorDetail {
  path: string;
  message: string;
}

/** A refusal the client can understand and act on; never a fault of Slipway itself. */
export class DomainError extends Error {
  override readonly name = 'DomainError';
  constructor(
    readonly code: DomainErrorCode,
    message: string,
    readonly details: ErrorDetail[] = [],
  ) {
    super(message);
  }
}

export const notFound = (what: string) => new DomainError('not_found', `${what} not found`);
export const conflict = (message: string) => new DomainError('conflict', message);
export const invalid = (path: string, message: string) =>
  new DomainError('validation_failed', message, [{ path, message }]);
