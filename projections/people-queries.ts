import type { InstallationRole, ProjectGrant, ProjectRole } from '../commands/user/roles.js';
import type { SqlExecutor } from '../src/db/sql-client.js';

export interface UserRow {
  id: string;
  role: InstallationRole;
  sealed_email: string | null;
  sealed_name: string | null;
  two_factor: boolean;
  created_at: Date | string;
  removed_at: Date | string | null;
  erased_at: Date | string | null;
}

export interface InvitationRow {
  id: string;
  sealed_email: string;
  role: InstallationRole;
  projects: ProjectGrant[];
  expires_at: Date | string;
  created_at: Date | string;
  accepted_at: Date | string | null;
  revoked_at: Date | string | null;
}

export interface MemberRow {
  project_id: string;
  user_id: string;
  role: ProjectRole;
}

const USER_COLUMNS = 'id, role, sealed_email, sealed_name, two_factor, created_at, removed_at, erased_at';
const INVITATION_COLUMNS = 'id, sealed_email, role, projects, expires_at, created_at, accepted_at, revoked_at';

export async function findUser(db: SqlExecutor, id: string): Promise<UserRow | null> {
  const { rows } = await db.query<UserRow>(`select ${USER_COLUMNS} from rm_users where id = $1`, [id]);
  return rows[0] ?? null;
}

/** People with an account now (removed ones are left out). */
export async function listUsers(db: SqlExecutor): Promise<UserRow[]> {
  const { rows } = await db.query<UserRow>(`select ${USER_COLUMNS} from rm_users where removed_at is null order by created_at, id`);
  return rows;
}

export async function countOwners(db: SqlExecutor): Promise<number> {
  const { rows } = await db.query<{ n: number }>(`select count(*)::int as n from rm_users where role = 'owner' and removed_at is null`);
  return rows[0]?.n ?? 0;
}

export async function membershipsOf(db: SqlExecutor, userId: string): Promise<MemberRow[]> {
  const { rows } = await db.query<MemberRow>('select project_id, user_id, role from rm_project_members where user_id = $1 order by project_id', [userId]);
  return rows;
}

export async function membersOf(db: SqlExecutor, projectId: string): Promise<MemberRow[]> {
  const { rows } = await db.query<MemberRow>('select project_id, user_id, role from rm_project_members where project_id = $1 order by since, user_id', [projectId]);
  return rows;
}

export async function findInvitation(db: SqlExecutor, id: string): Promise<InvitationRow | null> {
  const { rows } = await db.query<InvitationRow>(`select ${INVITATION_COLUMNS} from rm_invitations where id = $1`, [id]);
  return rows[0] ?? null;
}

export async function findInvitationByTokenHash(db: SqlExecutor, tokenHash: string): Promise<InvitationRow | null> {
  const { rows } = await db.query<InvitationRow>(`select ${INVITATION_COLUMNS} from rm_invitations where token_hash = $1`, [tokenHash]);
  return rows[0] ?? null;
}

/** Invitations not yet accepted, revoked or expired. */
export async function listPendingInvitations(db: SqlExecutor): Promise<InvitationRow[]> {
  const { rows } = await db.query<InvitationRow>(
    `select ${INVITATION_COLUMNS} from rm_invitations where accepted_at is null and revoked_at is null and expires_at > now() order by created_at, id`,
  );
  return rows;
}
