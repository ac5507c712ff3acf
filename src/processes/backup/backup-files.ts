import { createHash, type Hash } from 'node:crypto';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { privateDirectory } from '../../private-files.js';
import { writeWithBackpressure } from '../../runtime/backpressure.js';

/** Where a backup's file lives, relative to the data directory: it carries the backup id (idempotency). */
export const backupPathOf = (serviceId: string, backupId: string, extension: string) => `backups/${serviceId}/${backupId}.${extension}`;

/** Makes `directory` (below `<data dir>/backups`) and `backups` itself private to Slipway, each level checked. */
export function backupDirectoryFor(dataDir: string, directory: string) {
  privateDirectory(join(dataDir, 'backups'));
  privateDirectory(directory);
}

/** A file being written is named so until it is complete; a crash leaves only these behind. */
export const partialPathOf = (path: string) => `${path}.partial`;

/**
 * Hashes and counts what goes through it while it writes each chunk to every sink, taking the next chunk only
 * once every sink has taken this one: one dump feeds the file and the upload without ever being held whole.
 */
export class HashingTee extends Writable {
  private readonly hash: Hash = createHash('sha256');
  size = 0;

  constructor(private readonly sinks: Writable[]) {
    super();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void) {
    this.hash.update(chunk);
    this.size += chunk.length;
    Promise.all(this.sinks.map((s) => writeWithBackpressure(s, chunk, 'a backup output was closed'))).then(() => done(), done);
  }

  override _final(done: (error?: Error | null) => void) {
    for (const s of this.sinks) s.end();
    done();
  }

  get checksum() {
    return `sha256:${this.hash.copy().digest('hex')}`;
  }
}
