import { hashApiKeySecret } from '../../commands/api-key/secret.js';
import { findActiveKeyByHash } from '../../projections/api-key-queries.js';
import type { ProjectionRunner } from '../../projections/runner.js';
import type { SqlExecutor } from '../db/sql-client.js';

export interface Principal {
  keyId: string;
  access: 'read' | 'write';
  /** null: every project. */
  projectIds: readonly string[] | null;
}

/**
 * Known keys by hash, dropped whenever a batch touches any key (so a revocation applies at once) or the
 * read models are rebuilt. Unknown hashes are not remembered: random keys must not grow the map.
 */
export class PrincipalCache {
  private byHash = new Map<string, Principal>();
  private epoch = -1;

  constructor(
    private readonly db: SqlExecutor,
    private readonly runner: ProjectionRunner,
  ) {
    runner.onApplied((batch) => {
      if (batch.some((e) => e.streamId.startsWith('apikey-'))) this.byHash.clear();
    });
  }

  find(secret: string): Promise<Principal | null> {
    return this.findByHash(hashApiKeySecret(secret));
  }

  /** The key a session was opened with, by the hash the session keeps; null once it is revoked. */
  async findByHash(hash: string): Promise<Principal | null> {
    if (this.epoch !== this.runner.epoch) {
      this.epoch = this.runner.epoch;
      this.byHash.clear();
    }
    const cached = this.byHash.get(hash);
    if (cached) return cached;
    const key = await findActiveKeyByHash(this.db, hash);
    if (!key) return null;
    const principal: Principal = { keyId: key.id, access: key.access, projectIds: key.project_ids };
    this.byHash.set(hash, principal);
    return principal;
  }
}
