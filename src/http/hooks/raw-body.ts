import type { IncomingMessage } from 'node:http';
import { HttpError } from '../errors.js';

export interface HookBodyLimits {
  /** GitHub's largest delivery: the hook routes take bodies up to this, every other route keeps its own limit. */
  maxBytes: number;
  /**
   * What all hook bodies being read at once may hold in memory, charged for the bytes received so far (a body
   * that declares no length is not charged its whole limit up front).
   */
  bytesInFlight: number;
  /** Bodies one service's hook receives at once: held connections to one service never take another's turn. */
  bodiesPerService: number;
  /** A body that stops coming this long is dropped. */
  idleMs: number;
  /** And one that takes this long in all. */
  totalMs: number;
}

export const HOOK_BODY_LIMITS: HookBodyLimits = {
  maxBytes: 25 * 1024 * 1024,
  bytesInFlight: 64 * 1024 * 1024,
  bodiesPerService: 2,
  idleMs: 10_000,
  totalMs: 30_000,
};

/** The connection is closed after these answers: the rest of a body never sent is not waited for. */
const CLOSE = { Connection: 'close' };
const busy = (what: string) => new HttpError(503, 'unavailable', `${what}; retry shortly`, [], { 'Retry-After': '5', ...CLOSE });
const tooLarge = (limit: number) => new HttpError(413, 'payload_too_large', `a webhook delivery is at most ${limit} bytes`, [], CLOSE);
const tooSlow = (why: string) => new HttpError(408, 'request_timeout', `the delivery's body ${why}`, [], CLOSE);

/**
 * Reads hook bodies within budgets: per service (bodies at once), for all (bytes held), and in time (idle and
 * total deadlines). Only deliveries to a service with auto-deploy get here; the rest are refused unread.
 */
export class HookBodyReader {
  private bytesHeld = 0;
  private readonly readingFor = new Map<string, number>();

  constructor(private readonly limits: HookBodyLimits = HOOK_BODY_LIMITS) {}

  /** The body's exact bytes (a signature is over them, not over any decoding of them). */
  async read(req: IncomingMessage, serviceId: string): Promise<Buffer> {
    const declared = Number(req.headers['content-length']);
    if (Number.isSafeInteger(declared) && declared > this.limits.maxBytes) throw tooLarge(this.limits.maxBytes);
    const reading = this.readingFor.get(serviceId) ?? 0;
    if (reading >= this.limits.bodiesPerService) throw busy('this service’s hook is already receiving as many deliveries as it may at once');
    this.readingFor.set(serviceId, reading + 1);
    let charged = 0;
    try {
      return await this.collect(req, (n) => {
        if (this.bytesHeld + n > this.limits.bytesInFlight) throw busy('too many webhook deliveries are being received at once');
        this.bytesHeld += n;
        charged += n;
      });
    } finally {
      this.bytesHeld -= charged;
      const left = (this.readingFor.get(serviceId) ?? 1) - 1;
      if (left > 0) this.readingFor.set(serviceId, left);
      else this.readingFor.delete(serviceId);
    }
  }

  private collect(req: IncomingMessage, charge: (bytes: number) => void): Promise<Buffer> {
    const { maxBytes, idleMs, totalMs } = this.limits;
    return new Promise<Buffer>((resolve, reject) => {
      const chunks: Buffer[] = [];
      let received = 0;
      let idle: NodeJS.Timeout | undefined;
      const total = setTimeout(() => fail(tooSlow(`took more than ${totalMs / 1000} s`)), totalMs);
      const waitForMore = () => {
        clearTimeout(idle);
        idle = setTimeout(() => fail(tooSlow(`stopped for ${idleMs / 1000} s`)), idleMs);
      };
      const done = () => {
        clearTimeout(idle);
        clearTimeout(total);
        req.off('data', onData);
        req.off('end', onEnd);
        req.off('error', onError);
        req.off('close', onClose);
      };
      const fail = (error: Error) => {
        done();
        // Nothing more is read: the answer closes the connection.
        req.pause();
        reject(error);
      };
      const onData = (chunk: Buffer) => {
        received += chunk.length;
        if (received > maxBytes) return fail(tooLarge(maxBytes));
        try {
          charge(chunk.length);
        } catch (error) {
          return fail(error as Error);
        }
        chunks.push(chunk);
        waitForMore();
      };
      const onEnd = () => {
        done();
        resolve(Buffer.concat(chunks, received));
      };
      const onError = (error: Error) => fail(error);
      const onClose = () => {
        if (!req.complete) fail(new HttpError(400, 'validation_failed', 'the delivery was cut off before its end'));
      };
      req.on('data', onData);
      req.on('end', onEnd);
      req.on('error', onError);
      req.on('close', onClose);
      waitForMore();
    });
  }
}
