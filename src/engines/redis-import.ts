import { isIP } from 'node:net';
import { checkServerIdentity } from 'node:tls';
import type { Redis } from 'ioredis';

/** Logical databases copied when the source does not say how many it has (Redis' default). */
const DEFAULT_DATABASES = 16;
const BATCH = 500;

const connect = async (client: Redis) => {
  await client.connect();
  return client;
};
const options = { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 5_000, retryStrategy: () => null, enableOfflineQueue: false } as const;

/** The source as reached through a relay: the relay's socket, and what the URL said of the server. */
export interface RedisSource {
  /** The unix socket each connection to the source goes through. */
  path: string;
  /** The host the URL names: what a rediss:// server's certificate must be for. */
  host: string;
  tls: boolean;
  username: string | null;
  password: string | null;
}

/** ioredis options for a source behind a relay; TLS is verified against the URL's host, not the socket. */
function sourceOptions(source: RedisSource) {
  const tls = source.tls
    ? { tls: { servername: isIP(source.host) ? undefined : source.host, checkServerIdentity: (_: string, cert: Parameters<typeof checkServerIdentity>[1]) => checkServerIdentity(source.host, cert) } }
    : {};
  return { ...options, path: source.path, username: source.username ?? undefined, password: source.password ?? undefined, ...tls };
}

/**
 * Copies every key of every logical database with SCAN, DUMP and RESTORE … REPLACE, keeping TTLs. Keys that
 * expire while being copied are skipped. Returns how many keys were copied.
 */
export async function copyRedis(from: RedisSource, target: { host: string; port: number; password: string | null }, signal: AbortSignal): Promise<number> {
  // Loaded when an import runs, not with the server.
  const { Redis } = await import('ioredis');
  const source = await connect(new Redis(sourceOptions(from)));
  const into = await connect(new Redis({ ...options, host: target.host, port: target.port, password: target.password ?? undefined })).catch(async (error: unknown) => {
    source.disconnect();
    throw error;
  });
  try {
    const configured = await source.config('GET', 'databases').catch(() => null);
    const databases = Number((configured as string[] | null)?.[1] ?? DEFAULT_DATABASES) || DEFAULT_DATABASES;
    let copied = 0;
    for (let db = 0; db < databases; db++) {
      // A source with fewer databases than assumed ends the copy at its last one.
      if (!(await source.select(db).then(() => true, () => false))) break;
      await into.select(db);
      let cursor = '0';
      do {
        signal.throwIfAborted();
        const [next, keys] = await source.scan(cursor, 'COUNT', BATCH);
        cursor = next;
        if (keys.length === 0) continue;
        const read = source.pipeline();
        for (const key of keys) read.pttl(key).dumpBuffer(key);
        const answers = (await read.exec()) ?? [];
        const write = into.pipeline();
        keys.forEach((key, i) => {
          const ttl = answers[2 * i]?.[1] as number;
          const payload = answers[2 * i + 1]?.[1] as Buffer | null;
          if (payload === null || ttl === -2) return;
          write.restore(key, ttl > 0 ? ttl : 0, payload, 'REPLACE');
          copied++;
        });
        for (const [error] of (await write.exec()) ?? []) if (error) throw error;
      } while (cursor !== '0');
    }
    return copied;
  } finally {
    source.disconnect();
    into.disconnect();
  }
}
