import { Secret, TOTP } from 'otpauth';
import t from 'tap';
import { createProject, createService } from '../helpers/api-suite.js';
import { assertError } from '../helpers/http-errors.js';
import { peopleSessions, type Signed } from '../helpers/people-sessions.js';
import { startTestServer } from '../helpers/test-server.js';

const s = await startTestServer();
t.teardown(() => s.close());
const { signIn, as, invited } = peopleSessions(s);

const made = await s.call('POST', '/api/users/owner', { body: { email: 'ada@example.com', name: 'Ada', password: 'correct horse battery' } });
if (made.status !== 200) throw new Error(`owner: ${made.status}`);
const owner = await signIn('ada@example.com', 'correct horse battery');

const mine = await createProject(s, 'Mine');
const other = await createProject(s, 'Other');
const web = await createService(s, mine.id, { name: 'web', repoFullName: 'acme/web', branch: 'main', env: [{ key: 'API_TOKEN', value: 'tok-secret-123' }] });
const elsewhere = await createService(s, other.id, { name: 'there', repoFullName: 'acme/there', branch: 'main', env: [{ key: 'PLAIN', value: 'shown' }] });

const people: Record<string, Signed> = {
  owner,
  admin: await invited('admin@example.com', 'admin'),
  'project admin': await invited('padmin@example.com', 'member', [{ projectId: mine.id, role: 'admin' }]),
  deployer: await invited('deployer@example.com', 'member', [{ projectId: mine.id, role: 'deployer' }]),
  viewer: await invited('viewer@example.com', 'member', [{ projectId: mine.id, role: 'viewer' }, { projectId: other.id, role: 'deployer' }]),
  outsider: await invited('outsider@example.com', 'member', [{ projectId: other.id, role: 'admin' }]),
};
const ROLES = Object.keys(people);
const someone = (await invited('spare@example.com', 'member')).userId;

type Expected = Record<string, number>;
let doomed = 0;
/** Each endpoint group's representative request and the status each role gets; a 2xx is written 200. */
const MATRIX: { group: string; method: string; path: string | (() => Promise<string>); body?: unknown | ((role: string) => unknown); expect: Expected }[] = [
  { group: 'projects: read', method: 'GET', path: `/api/projects/${mine.id}/references`, expect: { owner: 200, admin: 200, 'project admin': 200, deployer: 200, viewer: 200, outsider: 404 } },
  { group: 'projects: rename', method: 'PATCH', path: `/api/projects/${mine.id}`, body: { description: 'changed' }, expect: { owner: 200, admin: 200, 'project admin': 200, deployer: 403, viewer: 403, outsider: 404 } },
  { group: 'projects: create', method: 'POST', path: '/api/projects', body: (role: string) => ({ name: `New by ${role}` }), expect: { owner: 200, admin: 200, 'project admin': 403, deployer: 403, viewer: 403, outsider: 403 } },
  { group: 'services: create', method: 'POST', path: `/api/projects/${mine.id}/services`, body: (role: string) => ({ name: `made-by-${role.replace(' ', '-')}`, repoFullName: 'acme/made', branch: 'main' }), expect: { owner: 200, admin: 200, 'project admin': 200, deployer: 403, viewer: 403, outsider: 404 } },
  { group: 'services: overview', method: 'GET', path: `/api/services/${web.id}/overview`, expect: { owner: 200, admin: 200, 'project admin': 200, deployer: 200, viewer: 200, outsider: 404 } },
  { group: 'services: settings', method: 'PATCH', path: `/api/services/${web.id}`, body: { releasesKept: 4 }, expect: { owner: 200, admin: 200, 'project admin': 200, deployer: 200, viewer: 403, outsider: 404 } },
  { group: 'variables', method: 'POST', path: `/api/services/${web.id}/env`, body: { key: 'GREETING', value: 'hi' }, expect: { owner: 200, admin: 200, 'project admin': 200, deployer: 200, viewer: 403, outsider: 404 } },
  { group: 'domains', method: 'POST', path: `/api/services/${web.id}/domains`, body: { hostname: 'web.roles.test' }, expect: { owner: 200, admin: 409, 'project admin': 409, deployer: 409, viewer: 403, outsider: 404 } },
  { group: 'deployments: list', method: 'GET', path: `/api/services/${web.id}/deployments`, expect: { owner: 200, admin: 200, 'project admin': 200, deployer: 200, viewer: 200, outsider: 404 } },
  { group: 'releases: rollback', method: 'POST', path: `/api/services/${web.id}/rollback`, body: {}, expect: { owner: 409, admin: 409, 'project admin': 409, deployer: 409, viewer: 403, outsider: 404 } },
  { group: 'project audit log', method: 'GET', path: `/api/projects/${mine.id}/events`, expect: { owner: 200, admin: 200, 'project admin': 200, deployer: 200, viewer: 200, outsider: 404 } },
  { group: 'installation audit log', method: 'GET', path: '/api/events', expect: { owner: 200, admin: 200, 'project admin': 403, deployer: 403, viewer: 403, outsider: 403 } },
  { group: 'members: list', method: 'GET', path: `/api/projects/${mine.id}/members`, expect: { owner: 200, admin: 200, 'project admin': 200, deployer: 200, viewer: 200, outsider: 404 } },
  { group: 'members: set', method: 'PUT', path: `/api/projects/${mine.id}/members/${someone}`, body: { role: 'viewer' }, expect: { owner: 200, admin: 200, 'project admin': 200, deployer: 403, viewer: 403, outsider: 404 } },
  { group: 'people', method: 'GET', path: '/api/users', expect: { owner: 200, admin: 200, 'project admin': 403, deployer: 403, viewer: 403, outsider: 403 } },
  { group: 'invitations', method: 'GET', path: '/api/invitations', expect: { owner: 200, admin: 200, 'project admin': 403, deployer: 403, viewer: 403, outsider: 403 } },
  { group: 'settings: read', method: 'GET', path: '/api/settings', expect: { owner: 200, admin: 200, 'project admin': 200, deployer: 200, viewer: 200, outsider: 200 } },
  { group: 'settings: change', method: 'PATCH', path: '/api/settings', body: { sessionIdleMinutes: 90 }, expect: { owner: 200, admin: 403, 'project admin': 403, deployer: 403, viewer: 403, outsider: 403 } },
  { group: 'API keys', method: 'GET', path: '/api/keys', expect: { owner: 200, admin: 403, 'project admin': 403, deployer: 403, viewer: 403, outsider: 403 } },
  { group: 'cluster', method: 'GET', path: '/api/cluster', expect: { owner: 200, admin: 403, 'project admin': 403, deployer: 403, viewer: 403, outsider: 403 } },
  { group: 'mail settings', method: 'GET', path: '/api/settings/mail', expect: { owner: 200, admin: 403, 'project admin': 403, deployer: 403, viewer: 403, outsider: 403 } },
  { group: 'single sign-on settings', method: 'GET', path: '/api/settings/oidc', expect: { owner: 200, admin: 403, 'project admin': 403, deployer: 403, viewer: 403, outsider: 403 } },
  { group: 'notification channels: create', method: 'POST', path: '/api/notification-channels', body: { name: 'ops', type: 'webhook', config: { url: 'https://hooks.example.com/x' }, projectIds: [mine.id] }, expect: { owner: 200, admin: 200, 'project admin': 200, deployer: 200, viewer: 403, outsider: 404 } },
  { group: 'my account', method: 'GET', path: '/api/users/me', expect: { owner: 200, admin: 200, 'project admin': 200, deployer: 200, viewer: 200, outsider: 200 } },
  {
    group: 'services: delete',
    method: 'DELETE',
    path: async () => `/api/services/${(await createService(s, mine.id, { name: `doomed-${++doomed}`, repoFullName: 'acme/doomed', branch: 'main' })).id}`,
    expect: { owner: 200, admin: 200, 'project admin': 200, deployer: 403, viewer: 403, outsider: 404 },
  },
];

t.test('the permission matrix: every endpoint group for each role, as the README tells it', async (t) => {
  for (const row of MATRIX) {
    for (const role of ROLES) {
      const path = typeof row.path === 'string' ? row.path : await row.path();
      const r = await s.call(row.method, path, as(people[role]!, typeof row.body === 'function' ? row.body(role) : row.body));
      const status = r.status >= 200 && r.status < 300 ? 200 : r.status;
      t.equal(status, row.expect[role], `${row.group}: ${role} (${JSON.stringify(r.body).slice(0, 160)})`);
    }
  }
});

t.test('a viewer reads the project with its secrets masked, and only there', async (t) => {
  const viewer = people.viewer!;
  const seen = await s.call('GET', `/api/services/${web.id}/overview`, as(viewer));
  const token = seen.body.env.find((v: { key: string }) => v.key === 'API_TOKEN');
  t.same([token.masked, token.value, token.resolvedValue, token.hasValue], [true, '', '', true], 'the value is masked, its presence told');
  t.notOk(JSON.stringify(seen.body).includes('tok-secret-123'), 'the value is nowhere in the answer');
  const deployer = await s.call('GET', `/api/services/${elsewhere.id}/overview`, as(viewer));
  t.match(deployer.body.env, [{ key: 'PLAIN', masked: false, value: 'shown' }], 'in a project where they deploy, values show');
  const byOwner = await s.call('GET', `/api/services/${web.id}/overview`, as(owner));
  t.match(byOwner.body.env.find((v: { key: string }) => v.key === 'API_TOKEN'), { masked: false, value: 'tok-secret-123' }, 'the owner sees the value');
  assertError(t, await s.call('POST', `/api/services/${web.id}/env`, as(viewer, { key: 'X', value: 'y' })), 403, 'forbidden', 'a viewer writes nothing');
  t.equal((await s.call('POST', `/api/services/${elsewhere.id}/env`, as(viewer, { key: 'X', value: 'y' }))).status, 200, 'where they deploy, they write');
});

t.test('requireTwoFactor: each person turns them on before anything else; the owner first', async (t) => {
  const viewerKey = (await s.call('POST', '/api/users/me/keys', as(people.viewer!, { name: 'laptop', access: 'write' }))).body.secret as string;
  const gitRefs = () =>
    fetch(`${s.url}/git/${elsewhere.id}.git/info/refs?service=git-upload-pack`, { headers: { authorization: `Basic ${Buffer.from(`x:${viewerKey}`).toString('base64')}` } });
  t.equal((await gitRefs()).status, 200, 'the Git remote answers a personal key');
  assertError(t, await s.call('PATCH', '/api/settings', as(owner, { requireTwoFactor: true })), 400, 'validation_failed', 'not before the owner has them');
  const started = await s.call('POST', '/api/users/me/totp', as(owner));
  const totp = (secret: string) => new TOTP({ secret: Secret.fromBase32(secret) });
  const ownerCode = totp(started.body.secret);
  t.equal((await s.call('POST', '/api/users/me/totp/confirm', as(owner, { code: ownerCode.generate() }))).status, 200);
  t.equal((await s.call('PATCH', '/api/settings', as(owner, { requireTwoFactor: true }))).status, 200, 'required from now on');

  const deployer = people.deployer!;
  assertError(t, await s.call('GET', '/api/projects', as(deployer)), 403, 'two_factor_setup_required', 'an open session is held at the set-up at once');
  t.equal((await s.call('GET', '/api/users/me', as(deployer))).status, 200, 'it still says who they are');
  const current = await s.call('GET', '/api/sessions/current', as(deployer));
  t.equal(current.body.session.mustSetUpTwoFactor, true, 'and the session says what is needed');
  const own = await s.call('POST', '/api/users/me/totp', as(deployer));
  t.equal(own.status, 200, 'the set-up answers');
  t.equal((await s.call('POST', '/api/users/me/totp/confirm', as(deployer, { code: totp(own.body.secret).generate() }))).status, 200);
  t.equal((await s.call('GET', '/api/projects', as(deployer))).status, 200, 'with two factors on, the rest answers again');
  t.equal((await s.call('GET', '/api/sessions/current', as(deployer))).body.session.mustSetUpTwoFactor, false);

  assertError(t, await s.call('GET', '/api/projects', { key: viewerKey }), 403, 'two_factor_setup_required', 'a personal key of someone without them: held too');
  t.equal((await gitRefs()).status, 403, 'and at the Git remote');
  t.equal((await s.call('GET', '/api/projects')).status, 200, 'an installation key is not a person: automation goes on');
  t.equal((await s.call('PATCH', '/api/settings', as(owner, { requireTwoFactor: false }))).status, 200);
  t.equal((await s.call('GET', '/api/projects', as(people.viewer!))).status, 200, 'turned off, everyone is let through again');
  t.equal((await gitRefs()).status, 200, 'the Git remote too');
});
