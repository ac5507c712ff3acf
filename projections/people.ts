import { parseInvitationEvent } from '../commands/invitation/events.js';
import { parseProjectEvent } from '../commands/project/events.js';
import { parseUserEvent } from '../commands/user/events.js';
import type { RecordedEvent } from '../src/eventstore/port.js';
import type { BatchWriter } from './batch-writer.js';
import { eachEventOf, type Projector } from './projector.js';
import { sql } from './sql-text.js';

const users = eachEventOf('user', parseUserEvent, (event, id, at, out) => {
  switch (event.type) {
    case 'UserCreated': {
      const { role, sealedEmail, sealedName, invitationId } = event.data;
      out.upsert({ table: 'rm_users', row: { id, role, sealed_email: sealedEmail, sealed_name: sealedName, invitation_id: invitationId, created_at: at }, key: ['id'], update: [] });
      return;
    }
    case 'UserRenamed':
      out.sql(sql`update rm_users set sealed_name = ${event.data.sealedName} where id = ${id}`);
      return;
    case 'UserRoleChanged':
      out.sql(sql`update rm_users set role = ${event.data.role} where id = ${id}`);
      return;
    case 'UserPasswordChanged':
      out.sql(sql`update rm_users set password_changed_at = ${at} where id = ${id}`);
      return;
    case 'UserTwoFactorEnabled':
    case 'UserTwoFactorDisabled':
      out.sql(sql`update rm_users set two_factor = ${event.type === 'UserTwoFactorEnabled'} where id = ${id}`);
      return;
    case 'UserRemoved':
      out.sql(sql`update rm_users set removed_at = ${at} where id = ${id}`);
      return;
    case 'UserErased':
      out.sql(sql`update rm_users set sealed_email = null, sealed_name = null, erased_at = ${at} where id = ${id}`);
      return;
  }
});

const invitations = eachEventOf('invitation', parseInvitationEvent, (event, id, at, out) => {
  switch (event.type) {
    case 'InvitationCreated': {
      const { sealedEmail, role, projects, tokenHash, expiresAt } = event.data;
      out.upsert({
        table: 'rm_invitations',
        row: { id, sealed_email: sealedEmail, role, projects, token_hash: tokenHash, expires_at: expiresAt, created_at: at },
        key: ['id'],
        update: [],
      });
      return;
    }
    case 'InvitationAccepted':
      out.sql(sql`update rm_invitations set accepted_at = ${at}, user_id = ${event.data.userId} where id = ${id}`);
      return;
    case 'InvitationRevoked':
      out.sql(sql`update rm_invitations set revoked_at = ${at} where id = ${id}`);
      return;
  }
});

const members = eachEventOf('project', parseProjectEvent, (event, projectId, at, out) => {
  switch (event.type) {
    case 'ProjectMemberSet':
      out.upsert({ table: 'rm_project_members', row: { project_id: projectId, user_id: event.data.userId, role: event.data.role, since: at }, key: ['project_id', 'user_id'], update: ['role'] });
      return;
    case 'ProjectMemberRemoved':
      out.sql(sql`delete from rm_project_members where project_id = ${projectId} and user_id = ${event.data.userId}`);
      return;
    case 'ProjectDeleted':
      out.deleteOwnedBy('rm_project_members', 'project_id', projectId);
      return;
    default:
      return;
  }
});

/** People, their invitations and their projects. E-mails and names stay sealed here: queries open them. */
export const peopleProjector: Projector = {
  name: 'people',
  version: 2,
  tables: ['rm_users', 'rm_invitations', 'rm_project_members'],
  ddl: `
create table if not exists rm_users (
  id text primary key,
  role text not null,
  sealed_email text,
  sealed_name text,
  invitation_id text,
  created_at timestamptz not null,
  password_changed_at timestamptz,
  two_factor boolean not null default false,
  removed_at timestamptz,
  erased_at timestamptz
);
create table if not exists rm_invitations (
  id text primary key,
  sealed_email text not null,
  role text not null,
  projects jsonb not null,
  token_hash text not null unique,
  expires_at timestamptz not null,
  created_at timestamptz not null,
  accepted_at timestamptz,
  revoked_at timestamptz,
  user_id text
);
create table if not exists rm_project_members (
  project_id text not null,
  user_id text not null,
  role text not null,
  since timestamptz not null,
  primary key (project_id, user_id)
);`,
  indexes: 'create index if not exists rm_project_members_user on rm_project_members (user_id);',
  applyBatch(events: readonly RecordedEvent[], out: BatchWriter) {
    users(events, out);
    invitations(events, out);
    members(events, out);
  },
};
