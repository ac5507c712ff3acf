import { createHmac, randomBytes } from 'node:crypto';
import type { SqlClient } from '../db/sql-client.js';
import { open, seal } from './aes-gcm.js';

const PREFIX = 'enc:v1:';

const KEYRING_DDL = `
create table if not exists sec_data_keys (
  aggregate_id text primary key,
  wrapped_key text not null,
  created_at timestamptz not null default now()
);`;

export function isEncrypted(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith(PREFIX);
}

/**
 * Secrets are sealed with a data key per aggregate; the data key is stored wrapped by the master key,
 * outside the event log, so deleting it makes every copy of the aggregate's secrets unreadable.
 */
export interface Keyring {
  encrypt(aggregateId: string, plaintext: string): Promise<string>;
  /** `null` once the aggregate's key has been shredded. */
  decrypt(value: string): Promise<string | null>;
  shred(aggregateId: string): Promise<void>;
  /**
   * A keyed hash of `value` for finding a sealed value by equality (a person by e-mail) without storing it: the
   * same for the same value, unguessable without the master key.
   */
  blindIndex(purpose: string, value: string): string;
}

export async function createKeyring(sql: SqlClient, masterKey: Buffer): Promise<Keyring> {
  await sql.exec(KEYRING_DDL);
  const cache = new Map<string, Buffer | null>();

  async function dataKey(aggregateId: string, create: boolean): Promise<Buffer | null> {
    const cached = cache.get(aggregateId);
    if (cached) return cached;
    const { rows } = await sql.query<{ wrapped_key: string }>(
      'select wrapped_key from sec_data_keys where aggregate_id = $1',
      [aggregateId],
    );
    if (rows[0]) {
      const key = open(masterKey, rows[0].wrapped_key, `data-key:${aggregateId}`);
      cache.set(aggregateId, key);
      return key;
    }
    if (!create) return null;
    const key = randomBytes(32);
    await sql.query('insert into sec_data_keys (aggregate_id, wrapped_key) values ($1, $2) on conflict do nothing', [
      aggregateId,
      seal(masterKey, key, `data-key:${aggregateId}`),
    ]);
    cache.delete(aggregateId);
    return dataKey(aggregateId, false);
  }

  return {
    async encrypt(aggregateId, plaintext) {
      const key = (await dataKey(aggregateId, true))!;
      return `${PREFIX}${aggregateId}:${seal(key, Buffer.from(plaintext, 'utf8'), aggregateId)}`;
    },
    async decrypt(value) {
      if (!isEncrypted(value)) throw new Error('not an encrypted value');
      const rest = value.slice(PREFIX.length);
      const split = rest.lastIndexOf(':');
      const aggregateId = rest.slice(0, split);
      const key = await dataKey(aggregateId, false);
      return key ? open(key, rest.slice(split + 1), aggregateId).toString('utf8') : null;
    },
    blindIndex: (purpose, value) => createHmac('sha256', masterKey).update(`blind-index:${purpose}\0${value}`).digest('base64url'),
    async shred(aggregateId) {
      await sql.query('delete from sec_data_keys where aggregate_id = $1', [aggregateId]);
      cache.delete(aggregateId);
    },
  };
}
