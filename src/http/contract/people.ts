import { z } from 'zod';
import { installationRole, projectRole } from '../../../commands/user/roles.js';
import { MIN_PASSWORD_LENGTH } from '../../people/passwords.js';
import { name } from '../validation.js';
import { id, okBody, timestamp } from './common.js';
import { endpoint } from './endpoint.js';
import { apiKey } from './api-keys.js';

export const email = z.string().trim().toLowerCase().pipe(z.email('must be an e-mail address').max(254));
export const password = z.string().min(MIN_PASSWORD_LENGTH, `must be at least ${MIN_PASSWORD_LENGTH} characters`).max(1024);
export const grantedProjectRole = projectRole.meta({
  description:
    '`admin`: everything in the project; `deployer`: run it, not create or delete services, the project or its members; `viewer`: read it, with variable values masked, no console, no backup download.',
});
export const roleDescription = '`owner`: everything; `admin`: every project, not people, keys, settings or the cluster; `member`: the projects they are given.';

export const person = z
  .object({
    id,
    email: z.string().nullable().meta({ description: 'null once the person is erased.' }),
    name: z.string().meta({ description: '`deleted user <id>` once the person is erased.' }),
    role: installationRole.meta({ description: roleDescription }),
    twoFactor: z.boolean().meta({ description: 'Whether sign-in asks for a code of their authenticator app.' }),
    createdAt: timestamp,
    projects: z.array(z.object({ projectId: id, role: projectRole })).meta({ description: 'A member’s projects and their role in each; empty for owners and admins, who have every project.' }),
  })
  .meta({ id: 'User' });

export const member = z.object({ userId: id, name: z.string(), email: z.string().nullable(), role: projectRole }).meta({ id: 'ProjectMember' });

export const newPerson = { name: name(100), password };

export const peopleApi = {
  createOwner: endpoint({
    method: 'post',
    path: '/api/users/owner',
    operationId: 'createOwner',
    tag: 'People',
    summary: 'The installation’s first owner (once: 409 when an owner exists)',
    description: 'With an all-project write API key, such as the bootstrap key. The answer does not sign in: `POST /api/sessions` with the e-mail and password does.',
    access: 'write',
    allProjects: true,
    body: z.object({ email, ...newPerson }),
    response: z.object({ user: person }),
    errors: [409],
  }),
  list: endpoint({
    method: 'get',
    path: '/api/users',
    operationId: 'listUsers',
    tag: 'People',
    summary: 'Everyone with an account',
    access: 'write',
    allProjects: true,
    response: z.object({ users: z.array(person) }),
  }),
  me: endpoint({
    method: 'get',
    path: '/api/users/me',
    operationId: 'getMe',
    tag: 'People',
    summary: 'The signed-in person',
    access: 'read',
    response: z.object({ user: person }),
  }),
  updateMe: endpoint({
    method: 'patch',
    path: '/api/users/me',
    operationId: 'updateMe',
    tag: 'People',
    summary: 'Change my name or password; a new password ends my other sessions',
    access: 'read',
    body: z.object({ name: name(100).optional(), password: z.object({ current: z.string().max(1024), new: password }).optional() }),
    response: z.object({ user: person }),
    errors: [400],
  }),
  mySessions: endpoint({
    method: 'get',
    path: '/api/users/me/sessions',
    operationId: 'listMySessions',
    tag: 'People',
    summary: 'My signed-in sessions: device, address, when it began and was last seen; this one marked',
    access: 'read',
    response: z.object({
      sessions: z.array(
        z.object({
          id: z.string().meta({ description: 'The start of the session token’s hash: it names the session, it cannot open it.' }),
          device: z.string().nullable().meta({ description: 'The browser’s User-Agent at sign-in.' }),
          address: z.string().nullable(),
          createdAt: timestamp,
          lastSeenAt: timestamp.meta({ description: 'To the minute.' }),
          current: z.boolean(),
        }),
      ),
    }),
  }),
  endMySession: endpoint({
    method: 'delete',
    path: '/api/users/me/sessions/:sessionId',
    operationId: 'endMySession',
    tag: 'People',
    summary: 'End one of my sessions (signed out there at its next request)',
    access: 'read',
    response: okBody,
  }),
  endMyOtherSessions: endpoint({
    method: 'delete',
    path: '/api/users/me/sessions',
    operationId: 'endMyOtherSessions',
    tag: 'People',
    summary: 'End all my sessions but this one',
    access: 'read',
    response: okBody,
  }),
  startTwoFactor: endpoint({
    method: 'post',
    path: '/api/users/me/totp',
    operationId: 'startTwoFactor',
    tag: 'People',
    summary: 'Two factors, step 1: a new authenticator secret and its otpauth:// URL (a QR code of it is what apps scan)',
    description: 'From a signed-in session. Nothing changes at sign-in until a code of it is confirmed.',
    access: 'read',
    response: z.object({ secret: z.string(), otpauthUrl: z.string() }),
  }),
  confirmTwoFactor: endpoint({
    method: 'post',
    path: '/api/users/me/totp/confirm',
    operationId: 'confirmTwoFactor',
    tag: 'People',
    summary: 'Two factors, step 2: a current code of the new secret turns them on; the answer holds ten recovery codes, shown once',
    access: 'read',
    body: z.object({ code: z.string().max(64) }),
    response: z.object({ recoveryCodes: z.array(z.string()) }),
    errors: [400],
  }),
  disableTwoFactor: endpoint({
    method: 'post',
    path: '/api/users/me/totp/disable',
    operationId: 'disableTwoFactor',
    tag: 'People',
    summary: 'Turn two factors off (the password is asked again)',
    access: 'read',
    body: z.object({ password: z.string().max(1024) }),
    response: okBody,
    errors: [400],
  }),
  myKeys: endpoint({
    method: 'get',
    path: '/api/users/me/keys',
    operationId: 'listMyKeys',
    tag: 'People',
    summary: 'My personal API keys, revoked ones included',
    access: 'read',
    response: z.object({ keys: z.array(apiKey) }),
  }),
  createMyKey: endpoint({
    method: 'post',
    path: '/api/users/me/keys',
    operationId: 'createMyKey',
    tag: 'People',
    summary: 'A personal API key (from a signed-in session): it never does more than its own scope and access, nor more than I can at each request',
    description: 'Removing me, or taking me out of a project, disables my keys there at once. The answer holds the key, shown this once.',
    access: 'read',
    body: z.object({
      name: name(100),
      access: z.enum(['read', 'write']),
      projectIds: z.array(z.string().max(100)).min(1).max(1000).nullable().optional().meta({ description: 'Projects the key sees (among mine); null or absent: all I see.' }),
    }),
    response: z.object({ key: apiKey, secret: z.string() }),
    errors: [400],
  }),
  revokeMyKey: endpoint({
    method: 'delete',
    path: '/api/users/me/keys/:keyId',
    operationId: 'revokeMyKey',
    tag: 'People',
    summary: 'Revoke one of my personal keys',
    access: 'read',
    response: okBody,
  }),
  get: endpoint({
    method: 'get',
    path: '/api/users/:userId',
    operationId: 'getUser',
    tag: 'People',
    summary: 'One person',
    access: 'write',
    allProjects: true,
    response: z.object({ user: person }),
  }),
  update: endpoint({
    method: 'patch',
    path: '/api/users/:userId',
    operationId: 'updateUser',
    tag: 'People',
    summary: 'Change a person’s installation role (owners only); it applies on their next request',
    access: 'write',
    allProjects: true,
    body: z.object({ role: installationRole }),
    response: z.object({ user: person }),
    errors: [409],
  }),
  remove: endpoint({
    method: 'delete',
    path: '/api/users/:userId',
    operationId: 'removeUser',
    tag: 'People',
    summary: 'Remove a person (owners only): their sessions end at once; `?erase=true` also shreds their e-mail and name everywhere',
    access: 'write',
    allProjects: true,
    query: z.object({ erase: z.enum(['true', 'false']).optional() }),
    response: okBody,
    errors: [409],
  }),
  members: endpoint({
    method: 'get',
    path: '/api/projects/:projectId/members',
    operationId: 'listProjectMembers',
    tag: 'People',
    summary: 'The project’s members and their roles',
    access: 'read',
    response: z.object({ members: z.array(member) }),
  }),
  setMember: endpoint({
    method: 'put',
    path: '/api/projects/:projectId/members/:userId',
    operationId: 'setProjectMember',
    tag: 'People',
    summary: 'Give a person a role in the project (the project’s admins, admins and owners)',
    access: 'write',
    body: z.object({ role: grantedProjectRole }),
    response: z.object({ member }),
  }),
  removeMember: endpoint({
    method: 'delete',
    path: '/api/projects/:projectId/members/:userId',
    operationId: 'removeProjectMember',
    tag: 'People',
    summary: 'Take a person out of the project: it applies on their next request',
    access: 'write',
    response: okBody,
  }),
};
