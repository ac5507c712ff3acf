import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import { checkedAgents } from '../outbound/checked-connections.js';
import type { DestinationPolicy } from '../outbound/destination-policy.js';
import { ForbiddenDestinationError } from '../outbound/forbidden-destination.js';
import { shortLine } from '../outbound/outside-answers.js';

export interface RemoteStorageConfig {
  endpoint: string;
  region: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  prefix: string;
  forcePathStyle: boolean;
}

export class RemoteStorageError extends Error {
  constructor(
    readonly kind: 'not_found' | 'failed',
    message: string,
  ) {
    super(message);
    this.name = 'RemoteStorageError';
  }
}

export interface RemoteStorage {
  /** Writes a small probe object under the prefix, reads it back and compares, deletes it. */
  probe(): Promise<void>;
  /** Streams `body` to `key` as a multipart upload; on error or abort no object or unfinished upload is left. */
  upload(key: string, body: Readable, signal: AbortSignal): Promise<void>;
  /** The object as a stream and its size; a missing key is a RemoteStorageError('not_found'). */
  download(key: string): Promise<{ body: Readable; size: number }>;
  /** Deletes the object; a missing one is fine. */
  remove(key: string): Promise<void>;
  /** Releases the client's sockets. */
  close(): void;
}

const PART_SIZE = 8 * 1024 * 1024;
const PARTS_IN_FLIGHT = 2;

function storageKey(prefix: string, key: string): string {
  const trimmedPrefix = prefix.replace(/\/+$/, '');
  const trimmedKey = key.replace(/^\/+/, '');
  return trimmedPrefix ? `${trimmedPrefix}/${trimmedKey}` : trimmedKey;
}

interface ErrorDetails {
  message?: unknown;
  name?: unknown;
  code?: unknown;
  errors?: unknown;
  $metadata?: { httpStatusCode?: unknown };
}

/**
 * The storage's own words for a failure, as one short line: SDK errors carry the `<Message>` of the
 * storage's error answer as `message` unless the answer had none it could read; never more of the answer.
 */
function describe(error: unknown): string {
  if (typeof error !== 'object' || error === null) return String(error);
  const details = error as ErrorDetails;
  const message = typeof details.message === 'string' ? shortLine(details.message) : null;
  if (message && message !== 'UnknownError') return message;
  // Node reports a refused connection to a name with several addresses as an AggregateError with no message.
  if (Array.isArray(details.errors) && details.errors.length > 0) return describe(details.errors[0]);
  if (typeof details.code === 'string') return details.code;
  const status = details.$metadata?.httpStatusCode;
  const name = typeof details.name === 'string' && details.name !== 'UnknownError' && details.name !== 'Error' ? details.name : '';
  if (typeof status === 'number') return name ? `${name} (HTTP ${status})` : `the storage answered HTTP ${status}`;
  return name || 'unknown error';
}

function errorName(error: unknown): string | undefined {
  return error instanceof Error ? error.name : undefined;
}

/** The storage at `config.endpoint`, every connection to it made where `outbound` lets it. */
export async function openRemoteStorage(config: RemoteStorageConfig, outbound: DestinationPolicy): Promise<RemoteStorage> {
  // Loaded on first use: the SDK costs tens of MB that a 1 GB server without remote storage should not pay.
  const { S3Client, PutObjectCommand, GetObjectCommand, DeleteObjectCommand } = await import('@aws-sdk/client-s3');
  const { Upload } = await import('@aws-sdk/lib-storage');
  const { NodeHttpHandler } = await import('@smithy/node-http-handler');

  const client: S3Client = new S3Client({
    endpoint: config.endpoint,
    region: config.region,
    forcePathStyle: config.forcePathStyle,
    credentials: { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey },
    // The SDK's default CRC32 headers and checksum trailers are refused or mishandled by several S3-compatible services.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    requestHandler: new NodeHttpHandler(checkedAgents(outbound)),
  });
  const Bucket = config.bucket;

  const failure = (error: unknown, context?: string): RemoteStorageError | ForbiddenDestinationError => {
    if (error instanceof ForbiddenDestinationError) return error;
    let message = describe(error);
    // A very short "secret" would also match ordinary words in the message.
    if (config.secretAccessKey.length >= 8) message = message.replaceAll(config.secretAccessKey, '[secret]');
    return new RemoteStorageError('failed', context ? `${context}: ${message}` : message);
  };

  const removeObject = async (Key: string): Promise<void> => {
    try {
      await client.send(new DeleteObjectCommand({ Bucket, Key }));
    } catch (error) {
      if (errorName(error) !== 'NoSuchKey') throw failure(error);
    }
  };

  return {
    async probe() {
      const Key = storageKey(config.prefix, `.slipway-probe-${randomUUID()}`);
      const written = randomUUID();
      try {
        await client.send(new PutObjectCommand({ Bucket, Key, Body: written }));
        const response = await client.send(new GetObjectCommand({ Bucket, Key }));
        const read = await response.Body?.transformToString();
        if (read !== written) throw new RemoteStorageError('failed', 'the probe object read back differs from what was written');
      } catch (error) {
        if (error instanceof RemoteStorageError) throw error;
        throw failure(error);
      } finally {
        await client.send(new DeleteObjectCommand({ Bucket, Key })).catch(() => undefined);
      }
    },

    async upload(key, body, signal) {
      const Key = storageKey(config.prefix, key);
      const aborted = () => new RemoteStorageError('failed', `upload of ${Key} aborted`);
      if (signal.aborted) {
        body.destroy();
        throw aborted();
      }
      // The signal ends the body rather than going to Upload's own abort: Upload's abort rejects at once and aborts
      // the multipart upload later, while an ended body makes it abort first and reject after.
      const endBody = () => body.destroy(new Error('aborted'));
      signal.addEventListener('abort', endBody, { once: true });
      try {
        await new Upload({ client, params: { Bucket, Key, Body: body }, partSize: PART_SIZE, queueSize: PARTS_IN_FLIGHT }).done();
      } catch (error) {
        if (signal.aborted) throw aborted();
        throw failure(error, `upload of ${Key} failed`);
      } finally {
        signal.removeEventListener('abort', endBody);
      }
      // An abort that came after the last part was read cannot stop the completion, so the object goes.
      if (signal.aborted) {
        await removeObject(Key);
        throw aborted();
      }
    },

    async download(key) {
      const Key = storageKey(config.prefix, key);
      try {
        const response = await client.send(new GetObjectCommand({ Bucket, Key }));
        if (!(response.Body instanceof Readable)) throw new RemoteStorageError('failed', `download of ${Key}: the response has no stream body`);
        return { body: response.Body, size: response.ContentLength ?? 0 };
      } catch (error) {
        if (error instanceof RemoteStorageError) throw error;
        if (errorName(error) === 'NoSuchKey') throw new RemoteStorageError('not_found', `${Key} does not exist in bucket ${Bucket}`);
        throw failure(error, `download of ${Key} failed`);
      }
    },

    remove: (key) => removeObject(storageKey(config.prefix, key)),

    close() {
      client.destroy();
    },
  };
}
