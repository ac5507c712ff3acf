import { Secret, TOTP } from 'otpauth';
import t from 'tap';
import { createProject, createService } from '../helpers/api-suite.js';
import { assertError } from '../helpers/http-errors.js';
import { peopleSessions } from '../helpers/people-sessions.js';
import { startTestServer } from '../helpers/test-server.js';

const s = await startTestServer();
t.teardown(() => s.close());

const OWNER = { email: 'Ada@Example.com', name: 'Ada Lovelace', password: 'correct horse battery' };

const { signIn, as, invited } = peopleSessions(s);

t.test('the first owner: made once with the bootstrap key, then signs in with e-mail and password', async (t) => {
  assertError(t, await s.call('POST', '/api/users/owner', { body: { ...OWNER, password: 'short' } }), 400, 'validation_failed', 'a password under 12 characters');
  const made = await s.call('POST', '/api/users/owner', { body: OWNER });
  t.equal(made.status, 200);
  t.match(made.body.user, { email: 'ada@example.com', name: 'Ada Lovelace', role: 'owner', projects: [] });
  assertError(t, await s.call('POST', '/api/users/owner', { body: { ...OWNER, email: 'other@example.com' } }), 400, 'validation_failed', 'a second first owner');

  const owner = await signIn('ada@example.com', OWNER.password);
  const me = await s.call('GET', '/api/users/me', as(owner));
  t.match(me.body.user, { id: made.body.user.id, role: 'owner' });
  const session = await s.call('GET', '/api/sessions/current', as(owner));
  t.match(session.body.session, { keyId: null, userId: made.body.user.id, role: 'owner', access: 'write', projectIds: null });

  const wrong = await s.call('POST', '/api/sessions', { key: null, body: { email: 'ada@example.com', password: 'not the password!' } });
  const unknown = await s.call('POST', '/api/sessions', { key: null, body: { email: 'nobody@example.com', password: 'not the password!' } });
  t.same([wrong.status, wrong.body], [unknown.status, unknown.body], 'an unknown e-mail and a wrong password get the same answer');
  t.equal(wrong.status, 401);

  const log = JSON.stringify((await s.call('GET', '/api/events?limit=500')).body);
  t.notOk(log.toLowerCase().includes('ada@example.com'), 'the e-mail is sealed in the log');
  t.notOk(log.includes('Lovelace'), 'and the name');
  t.notOk(log.includes(OWNER.password), 'the password is in no event');
  const stored = await s.app.db.query<{ h: string }>('select password_hash as h from people_credentials');
  t.ok(stored.rows.every((r) => r.h.startsWith('scrypt$') && !r.h.includes(OWNER.password)), 'only scrypt hashes are kept');
});

t.test('invitations: a member gets their projects only, each with its role; a used token is gone', async (t) => {
  const shop = await createProject(s, 'Shop');
  const blog = await createProject(s, 'Blog');
  const hidden = await createProject(s, 'Hidden');
  const web = await createService(s, shop.id, { name: 'web', repoUrl: 'docker-image', dockerImage: 'example/web:1', branch: 'main', runtimeMode: 'web', internalPort: 8080, env: [] });

  const invitation = await s.call('POST', '/api/invitations', { body: { email: 'grace@example.com', role: 'member', projects: [{ projectId: shop.id, role: 'deployer' }, { projectId: blog.id, role: 'admin' }] } });
  t.equal(invitation.status, 200);
  t.match(invitation.body.invitation, { email: 'grace@example.com', role: 'member' });
  const token = new URL(invitation.body.url).pathname.split('/').pop()!;
  t.match(invitation.body.url, /\/invitations\/[A-Za-z0-9_-]{43}$/);
  t.notOk(JSON.stringify((await s.call('GET', '/api/events?limit=500')).body).includes(token), 'the token is not in the log');
  t.equal((await s.call('GET', '/api/invitations')).body.invitations.length, 1, 'pending');

  const accepted = await s.call('POST', `/api/invitations/${token}/accept`, { key: null, body: { name: 'Grace Hopper', password: 'a long enough password' } });
  t.equal(accepted.status, 200);
  t.match(accepted.headers.get('set-cookie'), /^__Host-slipway_session=/, 'accepting signs in');
  t.same(accepted.body.user.projects.map((p: { role: string }) => p.role).sort(), ['admin', 'deployer']);
  assertError(t, await s.call('POST', `/api/invitations/${token}/accept`, { key: null, body: { name: 'Again', password: 'a long enough password' } }), 410, 'invitation_gone', 'a used token');
  assertError(t, await s.call('POST', `/api/invitations/${'x'.repeat(43)}/accept`, { key: null, body: { name: 'Guess', password: 'a long enough password' } }), 410, 'invitation_gone', 'an unknown token, the same answer');
  t.equal((await s.call('GET', '/api/invitations')).body.invitations.length, 0, 'no longer pending');

  const grace = await signIn('grace@example.com', 'a long enough password');
  const projects = (await s.call('GET', '/api/projects', as(grace))).body.projects.map((p: { name: string }) => p.name).sort();
  t.same(projects, ['Blog', 'Shop'], 'she sees her two projects');
  assertError(t, await s.call('GET', `/api/projects/${hidden.id}`, as(grace)), 404, 'not_found', 'another project is missing to her');
  assertError(t, await s.call('GET', '/api/users', as(grace)), 403, 'forbidden', 'a member does not list people');
  assertError(t, await s.call('POST', '/api/projects', as(grace, { name: 'Mine' })), 403, 'forbidden', 'nor creates projects');

  // A deployer runs the project but does not shape it.
  t.equal((await s.call('POST', `/api/services/${web.id}/env`, as(grace, { key: 'GREETING', value: 'hi' }))).status, 200, 'a deployer sets variables');
  assertError(t, await s.call('POST', `/api/projects/${shop.id}/services`, as(grace, { name: 'api', repoUrl: 'docker-image', dockerImage: 'example/api:1' })), 403, 'forbidden', 'but creates no service');
  assertError(t, await s.call('DELETE', `/api/services/${web.id}`, as(grace)), 403, 'forbidden', 'deletes none');
  assertError(t, await s.call('DELETE', `/api/projects/${shop.id}`, as(grace)), 403, 'forbidden', 'nor the project');
  assertError(t, await s.call('PUT', `/api/projects/${shop.id}/members/${grace.userId}`, as(grace, { role: 'admin' })), 403, 'forbidden', 'nor makes herself its admin');
  const db = await createService(s, shop.id, { name: 'db', repoFullName: 'database:postgres', repoUrl: 'database', branch: 'main', internalPort: 5432, env: [] });
  const noBackup = '00000000-0000-4000-8000-000000000000';
  assertError(t, await s.call('POST', `/api/services/${db.id}/database/backups/${noBackup}/restore`, as(grace, {})), 403, 'forbidden', 'nor restores a backup');
  assertError(t, await s.call('DELETE', `/api/services/${db.id}/database/backups/${noBackup}`, as(grace)), 403, 'forbidden', 'nor deletes one');
  assertError(t, await s.call('POST', `/api/services/${db.id}/database/import/postgres-url`, as(grace, { sourceUrl: 'postgres://u:p@db.example.com/x' })), 403, 'forbidden', 'nor imports');
  assertError(t, await s.call('POST', `/api/services/${db.id}/database/backups/${noBackup}/restore`, {}), 404, 'not_found', 'where the key only misses the backup');
  // An admin of a project shapes it.
  t.equal((await s.call('PATCH', `/api/projects/${blog.id}`, as(grace, { description: 'Hers' }))).status, 200, 'the project she administers');

  const events = (await s.call('GET', `/api/events?actor=user:${grace.userId}`)).body.events;
  t.ok(events.length > 0 && events.every((e: { actorName: string }) => e.actorName === 'Grace Hopper'), 'the log names her, by her name');
});

t.test('a change of role or membership applies on the next request; a removed person’s sessions end at once', async (t) => {
  const lab = await createProject(s, 'Lab');
  const linus = await invited('linus@example.com', 'member', [{ projectId: lab.id, role: 'admin' }]);
  t.equal((await s.call('GET', `/api/projects/${lab.id}`, as(linus))).status, 200);
  const members = await s.call('GET', `/api/projects/${lab.id}/members`);
  t.match(members.body.members, [{ userId: linus.userId, name: 'linus', email: 'linus@example.com', role: 'admin' }]);

  t.equal((await s.call('DELETE', `/api/projects/${lab.id}/members/${linus.userId}`)).status, 200);
  assertError(t, await s.call('GET', `/api/projects/${lab.id}`, as(linus)), 404, 'not_found', 'out of the project: it is gone for him on the next request');

  t.equal((await s.call('PATCH', `/api/users/${linus.userId}`, { body: { role: 'admin' } })).status, 200);
  t.equal((await s.call('GET', `/api/projects/${lab.id}`, as(linus))).status, 200, 'an admin sees every project');
  assertError(t, await s.call('PATCH', '/api/settings', as(linus, {})), 403, 'forbidden', 'but not the installation’s settings');
  assertError(t, await s.call('POST', '/api/keys', as(linus, { name: 'mine', access: 'write' })), 403, 'forbidden', 'nor its keys');
  assertError(t, await s.call('POST', '/api/invitations', as(linus, { email: 'boss@example.com', role: 'owner' })), 403, 'forbidden', 'admins invite no owners');

  t.equal((await s.call('DELETE', `/api/users/${linus.userId}`)).status, 200);
  assertError(t, await s.call('GET', '/api/projects', as(linus)), 401, 'unauthorized', 'his session ended');
  assertError(t, await s.call('POST', '/api/sessions', { key: null, body: { email: 'linus@example.com', password: 'a long enough password' } }), 401, 'unauthorized', 'and he cannot sign in');
});

t.test('the last owner stays; erasure leaves the events and shreds the person', async (t) => {
  const owners = (await s.call('GET', '/api/users')).body.users.filter((u: { role: string }) => u.role === 'owner');
  t.equal(owners.length, 1);
  assertError(t, await s.call('PATCH', `/api/users/${owners[0].id}`, { body: { role: 'member' } }), 409, 'conflict', 'the last owner keeps the role');
  assertError(t, await s.call('DELETE', `/api/users/${owners[0].id}`), 409, 'conflict', 'and is not removed');

  const temp = await invited('temp@example.com', 'admin');
  t.equal((await s.call('POST', '/api/projects', as(temp, { name: 'Temporary' }))).status, 200, 'an admin creates a project');
  t.equal((await s.call('DELETE', `/api/users/${temp.userId}?erase=true`)).status, 200);
  const events = (await s.call('GET', `/api/events?actor=user:${temp.userId}`)).body.events;
  t.ok(events.length > 0, 'the events stay');
  t.ok(events.every((e: { actorName: string }) => e.actorName === `deleted user ${temp.userId}`), 'and name a deleted user');
  const everything = JSON.stringify((await s.call('GET', '/api/events?limit=1000')).body);
  t.notOk(everything.includes('temp@example.com'), 'the e-mail is in no answer');
  for (const table of ['rm_users', 'rm_invitations', 'people_credentials', 'http_sessions']) {
    const dump = JSON.stringify((await s.app.db.query(`select * from ${table}`)).rows);
    t.notOk(dump.includes('temp@example.com'), `nor in ${table}`);
  }
  assertError(t, await s.call('GET', `/api/users/${temp.userId}`), 404, 'not_found', 'gone from the people');
});

t.test('a changed password ends the other sessions', async (t) => {
  const first = await signIn('ada@example.com', OWNER.password);
  const second = await signIn('ada@example.com', OWNER.password);
  assertError(t, await s.call('PATCH', '/api/users/me', as(first, { password: { current: 'wrong password!', new: 'another long password' } })), 400, 'validation_failed', 'the current password is checked');
  t.equal((await s.call('PATCH', '/api/users/me', as(first, { password: { current: OWNER.password, new: 'another long password' } }))).status, 200);
  t.equal((await s.call('GET', '/api/users/me', as(first))).status, 200, 'this session goes on');
  assertError(t, await s.call('GET', '/api/users/me', as(second)), 401, 'unauthorized', 'the other ended');
  await signIn('ada@example.com', 'another long password');
  t.pass('the new password signs in');
});

t.test('a flood of sign-ins is turned away with 429, never queued without end, and the right password still signs in', async (t) => {
  const answers = await Promise.all(
    Array.from({ length: 90 }, (_, i) => s.call('POST', '/api/sessions', { key: null, body: { email: `flood${i}@example.com`, password: 'not anyone’s password' } })),
  );
  const statuses = [...new Set(answers.map((a) => a.status))].sort();
  t.same(statuses, [401, 429], `each answered 401 or 429 (${answers.filter((a) => a.status === 429).length} turned away)`);
  t.ok(answers.filter((a) => a.status === 429).every((a) => a.body.error.code === 'rate_limited' && a.headers.get('retry-after')), 'with rate_limited and Retry-After');
  await signIn('ada@example.com', 'another long password');
  t.pass('the owner signs in from the same address right after');
});

t.test('a personal key never does more than its person, now: out of a project, the key is out too; removed, it is refused', async (t) => {
  const north = await createProject(s, 'North');
  const south = await createProject(s, 'South');
  const elsewhere = await createProject(s, 'Elsewhere');
  const ken = await invited('ken@example.com', 'member', [{ projectId: north.id, role: 'deployer' }, { projectId: south.id, role: 'deployer' }]);
  assertError(t, await s.call('POST', '/api/users/me/keys', as(ken, { name: 'laptop', access: 'write', projectIds: [elsewhere.id] })), 400, 'validation_failed', 'not beyond his projects');
  const made = await s.call('POST', '/api/users/me/keys', as(ken, { name: 'laptop', access: 'write' }));
  t.equal(made.status, 200);
  t.equal(made.body.key.ownerUserId, ken.userId, 'the key is his');
  const key = made.body.secret as string;
  const names = async () => ((await s.call('GET', '/api/projects', { key })).body.projects as { name: string }[]).map((p) => p.name).sort();
  t.same(await names(), ['North', 'South'], 'the key sees what he sees');
  t.equal((await s.call('GET', '/api/users/me', { key })).body.user.id, ken.userId, 'and is him');
  assertError(t, await s.call('POST', '/api/users/me/keys', { key, body: { name: 'more', access: 'write' } }), 403, 'forbidden', 'a key mints no key');
  assertError(t, await s.call('POST', '/api/keys', { key, body: { name: 'installation', access: 'write' } }), 403, 'forbidden', 'nor an installation key');

  t.equal((await s.call('DELETE', `/api/projects/${north.id}/members/${ken.userId}`)).status, 200);
  t.same(await names(), ['South'], 'out of North: his key is out of it at once');
  assertError(t, await s.call('GET', `/api/projects/${north.id}`, { key }), 404, 'not_found', 'North is missing to the key');

  const read = (await s.call('POST', '/api/users/me/keys', as(ken, { name: 'read', access: 'read', projectIds: [south.id] }))).body.secret as string;
  assertError(t, await s.call('PATCH', `/api/projects/${south.id}`, { key: read, body: { description: 'x' } }), 403, 'forbidden', 'a read key of his reads only');
  t.equal((await s.call('GET', '/api/users/me/keys', as(ken))).body.keys.length, 2, 'his keys');

  t.equal((await s.call('DELETE', `/api/users/${ken.userId}`)).status, 200);
  assertError(t, await s.call('GET', '/api/projects', { key }), 401, 'unauthorized', 'removed: his key is refused');
});

t.test('my sessions: each with its device and address, one ended from another, or all but this one', async (t) => {
  await invited('mia@example.com', 'admin');
  const phone = await s.call('POST', '/api/sessions', { key: null, headers: { 'user-agent': 'Phone/1.0' }, body: { email: 'mia@example.com', password: 'a long enough password' } });
  const laptop = await signIn('mia@example.com', 'a long enough password');
  const listed = (await s.call('GET', '/api/users/me/sessions', as(laptop))).body.sessions as { id: string; device: string; address: string; current: boolean }[];
  t.equal(listed.length, 4, 'accepting and the sign-in after it, the phone, this laptop');
  t.equal(listed.filter((x) => x.current).length, 1, 'this one is marked');
  const onPhone = listed.find((x) => x.device === 'Phone/1.0')!;
  t.ok(onPhone && onPhone.address, 'the phone, with its address');
  t.notOk(JSON.stringify(listed).includes(phone.headers.get('set-cookie')!.split(';')[0]!.split('=')[1]!), 'no token is shown');
  t.equal((await s.call('DELETE', `/api/users/me/sessions/${onPhone.id}`, as(laptop))).status, 200);
  const phoneCookie = { key: null, headers: { cookie: phone.headers.get('set-cookie')!.split(';')[0]! } };
  assertError(t, await s.call('GET', '/api/users/me', phoneCookie), 401, 'unauthorized', 'the phone is signed out');
  assertError(t, await s.call('DELETE', `/api/users/me/sessions/${onPhone.id}`, as(laptop)), 404, 'not_found', 'ended once');
  t.equal((await s.call('DELETE', '/api/users/me/sessions', as(laptop))).status, 200);
  t.same((await s.call('GET', '/api/users/me/sessions', as(laptop))).body.sessions.map((x: { current: boolean }) => x.current), [true], 'only this one is left');
});

t.test('two factors: a code of the app confirms them; sign-in then asks for a code, each good once; a recovery code once', async (t) => {
  const zoe = await invited('zoe@example.com', 'member');
  const started = await s.call('POST', '/api/users/me/totp', as(zoe));
  t.equal(started.status, 200);
  t.match(started.body.otpauthUrl, /^otpauth:\/\/totp\/Slipway:zoe%40example\.com\?issuer=Slipway&secret=[A-Z2-7]+/);
  const app = new TOTP({ issuer: 'Slipway', label: 'zoe', secret: Secret.fromBase32(started.body.secret) });
  t.notOk(JSON.stringify((await s.call('GET', '/api/events?limit=1000')).body).includes(started.body.secret), 'the secret is in no event');
  assertError(t, await s.call('POST', '/api/users/me/totp/confirm', as(zoe, { code: '000000' === app.generate() ? '111111' : '000000' })), 400, 'validation_failed', 'a wrong code confirms nothing');
  const signInBody = { email: 'zoe@example.com', password: 'a long enough password' };
  t.equal((await s.call('POST', '/api/sessions', { key: null, body: signInBody })).status, 200, 'until confirmed, the password is enough');
  const confirmed = await s.call('POST', '/api/users/me/totp/confirm', as(zoe, { code: app.generate() }));
  t.equal(confirmed.status, 200);
  t.equal(confirmed.body.recoveryCodes.length, 10, 'ten recovery codes');
  t.equal((await s.call('GET', '/api/users/me', as(zoe))).body.user.twoFactor, true);

  assertError(t, await s.call('POST', '/api/sessions', { key: null, body: signInBody }), 401, 'two_factor_required', 'the password alone is no longer enough');
  assertError(t, await s.call('POST', '/api/sessions', { key: null, body: { ...signInBody, code: app.generate() } }), 401, 'unauthorized', 'the code that confirmed them is used');
  const next = app.generate({ timestamp: Date.now() + 30_000 });
  t.equal((await s.call('POST', '/api/sessions', { key: null, body: { ...signInBody, code: next } })).status, 200, 'the next code signs in');
  assertError(t, await s.call('POST', '/api/sessions', { key: null, body: { ...signInBody, code: next } }), 401, 'unauthorized', 'once');
  const recovery = confirmed.body.recoveryCodes[0] as string;
  t.equal((await s.call('POST', '/api/sessions', { key: null, body: { ...signInBody, code: recovery } })).status, 200, 'a recovery code signs in');
  assertError(t, await s.call('POST', '/api/sessions', { key: null, body: { ...signInBody, code: recovery } }), 401, 'unauthorized', 'once');

  assertError(t, await s.call('POST', '/api/users/me/totp/disable', as(zoe, { password: 'wrong password!' })), 400, 'validation_failed', 'turning them off asks for the password');
  t.equal((await s.call('POST', '/api/users/me/totp/disable', as(zoe, { password: 'a long enough password' }))).status, 200);
  t.equal((await s.call('POST', '/api/sessions', { key: null, body: signInBody })).status, 200, 'off: the password is enough again');
  const types = ((await s.call('GET', `/api/events?actor=user:${zoe.userId}`)).body.events as { type: string }[]).map((e) => e.type);
  t.ok(types.includes('UserTwoFactorEnabled') && types.includes('UserTwoFactorDisabled'), 'both are in the audit log');
});
