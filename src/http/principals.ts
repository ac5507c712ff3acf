import { hashApiKeySecret } from '../../commands/api-key/secret.js';
import { findActiveKeyByHash } from '../../projections/api-key-queries.js';
import { findUser, membershipsOf } from '../../projections/people-queries.js';
import type { ProjectionRunner } from '../../projections/runner.js';
import type { InstallationRole, ProjectRole } from '../../commands/user/roles.js';
import type { SqlExecutor } from '../db/sql-client.js';

export interface Principal {
  /** Who the log names: `key:<id>` or `user:<id>`. */
  actor: string;
  /** The API key of the request; null for a person's session. */
  keyId: string | null;
  /** The person of a session; null for an API key. */
  userId: string | null;
  access: 'read' | 'write';
  /** null: every project. */
  projectIds: readonly string[] | null;
  /** A person's installation role; null for an API key (an all-project write key can do what an owner can). */
  role: InstallationRole | null;
  /** A member's role in each of their projects; null when the principal is not scoped by roles. */
  projectRoles: ReadonlyMap<string, ProjectRole> | null;
  /** A person who must turn on two factors (the `requireTwoFactor` setting) before anything else. */
  mustSetUpTwoFactor: boolean;
}

export const keyPrincipal = (key: { id: string; access: 'read' | 'write'; project_ids: string[] | null }): Principal => ({
  actor: `key:${key.id}`,
  keyId: key.id,
  userId: null,
  access: key.access,
  projectIds: key.project_ids,
  role: null,
  projectRoles: null,
  mustSetUpTwoFactor: false,
});

/**
 * A person's rights now: owners and admins every project, members those they are given, each with its role.
 * A member writes if one of their projects lets them; which ones, `writingAs` (src/http/auth.ts) decides per request.
 */
export function personPrincipal(
  userId: string,
  role: InstallationRole,
  memberships: readonly { project_id: string; role: ProjectRole }[],
  mustSetUpTwoFactor = false,
): Principal {
  const base = { actor: `user:${userId}`, keyId: null, userId, role, mustSetUpTwoFactor };
  if (role !== 'member') return { ...base, access: 'write', projectIds: null, projectRoles: null };
  const projectRoles = new Map(memberships.map((m) => [m.project_id, m.role]));
  return { ...base, access: memberships.some((m) => m.role !== 'viewer') ? 'write' : 'read', projectIds: [...projectRoles.keys()], projectRoles };
}

/** A person's key: never more than its own scope and access, nor more than its person can now. */
export function personalKeyPrincipal(key: { id: string; access: 'read' | 'write'; project_ids: string[] | null }, person: Principal): Principal {
  const mine = person.projectIds;
  const projectIds = key.project_ids === null ? mine : mine === null ? key.project_ids : key.project_ids.filter((p) => mine.includes(p));
  const projectRoles = person.projectRoles && new Map([...person.projectRoles].filter(([p]) => projectIds === null || projectIds.includes(p)));
  return {
    actor: `key:${key.id}`,
    keyId: key.id,
    userId: person.userId,
    access: key.access === 'write' && person.access === 'write' ? 'write' : 'read',
    projectIds,
    role: person.role,
    projectRoles,
    mustSetUpTwoFactor: person.mustSetUpTwoFactor,
  };
}

/**
 * Answers derived from the read models, by key: dropped whenever an applied batch touches a stream of `streams`
 * (so a change applies on the next request) or the read models are rebuilt. Misses are not remembered.
 */
class ReadModelCache<V> {
  private entries = new Map<string, V>();
  private epoch = -1;

  constructor(
    private readonly runner: ProjectionRunner,
    streams: RegExp,
  ) {
    runner.onApplied((batch) => {
      if (batch.some((e) => streams.test(e.streamId))) this.entries.clear();
    });
  }

  async get(key: string, load: () => Promise<V | null>): Promise<V | null> {
    if (this.epoch !== this.runner.epoch) {
      this.epoch = this.runner.epoch;
      this.entries.clear();
    }
    const cached = this.entries.get(key);
    if (cached) return cached;
    const loaded = await load();
    if (loaded) this.entries.set(key, loaded);
    return loaded;
  }
}

/**
 * Known keys by hash, dropped whenever a batch touches any key, person, project or the settings (so a revocation, or a
 * change of the rights of a key's person, applies at once) or the read models are rebuilt. Unknown hashes are
 * not remembered: random keys must not grow the map.
 */
export class PrincipalCache {
  private readonly byHash: ReadModelCache<Principal>;

  constructor(
    private readonly db: SqlExecutor,
    runner: ProjectionRunner,
    private readonly people: PersonPrincipalCache,
  ) {
    this.byHash = new ReadModelCache(runner, /^(apikey|user|project|settings)-/);
  }

  find(secret: string): Promise<Principal | null> {
    return this.findByHash(hashApiKeySecret(secret));
  }

  /** The key a session was opened with, by the hash the session keeps; null once it is revoked or its person removed. */
  findByHash(hash: string): Promise<Principal | null> {
    return this.byHash.get(hash, async () => {
      const key = await findActiveKeyByHash(this.db, hash);
      if (!key) return null;
      if (key.owner_user_id === null) return keyPrincipal(key);
      const person = await this.people.find(key.owner_user_id);
      return person && personalKeyPrincipal(key, person);
    });
  }
}

/**
 * People's rights by id, dropped whenever a batch touches a person, a project (a membership change, a removal or
 * a role applies on the next request) or the settings (`requireTwoFactor`), or the read models are rebuilt.
 */
export class PersonPrincipalCache {
  private readonly byUser: ReadModelCache<Principal>;

  constructor(
    private readonly db: SqlExecutor,
    runner: ProjectionRunner,
    private readonly twoFactorRequired: () => Promise<boolean>,
  ) {
    this.byUser = new ReadModelCache(runner, /^(user|project|settings)-/);
  }

  /** The person's principal while they have an account; null once removed. */
  find(userId: string): Promise<Principal | null> {
    return this.byUser.get(userId, async () => {
      const person = await findUser(this.db, userId);
      if (!person || person.removed_at !== null) return null;
      const memberships = person.role === 'member' ? await membershipsOf(this.db, userId) : [];
      return personPrincipal(userId, person.role, memberships, !person.two_factor && (await this.twoFactorRequired()));
    });
  }
}
