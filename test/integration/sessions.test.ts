import { createHash } from 'node:crypto';
import t from 'tap';
import { MAX_SESSIONS_PER_KEY } from '../../src/http/session-store.js';
import { createKey, createProject } from '../helpers/api-suite.js';
import { assertError } from '../helpers/http-errors.js';
import { startTestServer } from '../helpers/test-server.js';

const s = await startTestServer({ SLIPWAY_KEY_FAILURES_PER_MINUTE: '5' });
t.teardown(() => s.close());

/** Signs in with `key`: the cookie to send back and the session's CSRF token. */
async function signIn(key: string) {
  const r = await s.call('POST', '/api/sessions', { key: null, body: { key } });
  if (r.status !== 200) throw new Error(`sign-in: ${r.status} ${JSON.stringify(r.body)}`);
  const cookie = r.headers.get('set-cookie')!.split(';')[0]!;
  return { cookie, csrf: r.body.session.csrfToken as string, answer: r };
}

const withCookie = (cookie: string, csrf?: string) => ({ key: null, headers: { cookie, ...(csrf ? { 'x-csrf-token': csrf } : {}) } });

t.test('sign-in sets a __Host- cookie (HttpOnly, Secure, SameSite=Strict, Path=/, no Domain) and answers no key', async (t) => {
  const { answer, cookie } = await signIn(s.key);
  t.match(answer.headers.get('set-cookie'), /^__Host-slipway_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; Secure; SameSite=Strict$/);
  t.match(answer.body.session, { access: 'write', projectIds: null, idleMinutes: 60, maxHours: 12 });
  t.notOk(JSON.stringify(answer.body).includes(s.key), 'the key is not in the answer');
  t.notOk(cookie.includes(s.key), 'nor in the cookie');
  const token = cookie.split('=')[1]!;
  const stored = async (value: string) => (await s.app.db.query<{ n: number }>('select count(*)::int as n from http_sessions where token_hash = $1 or key_hash = $1', [value])).rows[0]!.n;
  t.equal(await stored(token), 0, 'the store does not keep the token…');
  t.equal(await stored(createHash('sha256').update(token).digest('hex')), 1, '…only its hash');
  t.equal(await stored(s.key), 0, 'nor the key');
  assertError(t, await s.call('POST', '/api/sessions', { key: null, body: { key: 'slw_not-a-key' } }), 401, 'unauthorized', 'an unknown key');
  assertError(t, await s.call('POST', '/api/sessions', { key: null, body: {} }), 400, 'validation_failed', 'no key');
});

t.test('the cookie stands for the key; writes need the CSRF header', async (t) => {
  const { cookie, csrf } = await signIn(s.key);
  t.equal((await s.call('GET', '/api/projects', withCookie(cookie))).status, 200, 'a read with the cookie alone');
  assertError(t, await s.call('POST', '/api/projects', { ...withCookie(cookie), body: { name: 'Forged' } }), 403, 'forbidden', 'a write without the header');
  assertError(t, await s.call('POST', '/api/projects', { ...withCookie(cookie, 'x'.repeat(43)), body: { name: 'Forged' } }), 403, 'forbidden', 'a write with a wrong token');
  const made = await s.call('POST', '/api/projects', { ...withCookie(cookie, csrf), body: { name: 'Through the dashboard' } });
  t.equal(made.status, 200, 'a write with both');
  const current = await s.call('GET', '/api/sessions/current', withCookie(cookie));
  t.match(current.body.session, { csrfToken: csrf, access: 'write' }, 'a reloaded page gets its token back');
  assertError(t, await s.call('GET', '/api/sessions/current'), 401, 'unauthorized', 'a request made with a key has no session');
  const events = (await s.call('GET', `/api/events?limit=5&project=${made.body.project.id}`)).body;
  t.ok(JSON.stringify(events).includes(`"actor":"key:`), 'the audit history names the key behind the session');
});

t.test('a read key sees no writes; a scoped key sees only its projects', async (t) => {
  const mine = await createProject(s, 'Mine');
  await createProject(s, 'Theirs');
  const reader = await signIn((await createKey(s, 'read', null)).secret);
  assertError(t, await s.call('POST', '/api/projects', { ...withCookie(reader.cookie, reader.csrf), body: { name: 'No' } }), 403, 'forbidden', 'read-only');
  const scoped = await signIn((await createKey(s, 'write', [mine.id])).secret);
  t.same(scoped.answer.body.session.projectIds, [mine.id]);
  const projects = (await s.call('GET', '/api/projects', withCookie(scoped.cookie))).body.projects as { id: string }[];
  t.same(projects.map((p) => p.id), [mine.id]);
});

t.test('a session ends with sign-out, with its key, and when idle', async (t) => {
  const out = await signIn(s.key);
  assertError(t, await s.call('DELETE', '/api/sessions', withCookie(out.cookie)), 403, 'forbidden', 'sign-out is a write: it needs the header too');
  const signedOut = await s.call('DELETE', '/api/sessions', withCookie(out.cookie, out.csrf));
  t.equal(signedOut.status, 200);
  t.match(signedOut.headers.get('set-cookie'), /^__Host-slipway_session=; .*Max-Age=0/, 'the cookie is cleared');
  assertError(t, await s.call('GET', '/api/projects', withCookie(out.cookie)), 401, 'unauthorized', 'the old cookie no longer works');

  const key = await createKey(s, 'write', null);
  const revoked = await signIn(key.secret);
  t.equal((await s.call('DELETE', `/api/keys/${key.key.id}`)).status, 200);
  const after = await s.call('GET', '/api/projects', withCookie(revoked.cookie));
  assertError(t, after, 401, 'unauthorized', 'revoking the key ends its sessions');
  t.match(after.headers.get('set-cookie'), /Max-Age=0/);

  t.equal((await s.call('PATCH', '/api/settings', { body: { sessionIdleMinutes: 1 } })).status, 200);
  const idle = await signIn(s.key);
  t.equal(idle.answer.body.session.idleMinutes, 1);
  await s.app.db.query(`update http_sessions set last_seen_at = now() - interval '61 seconds'`);
  assertError(t, await s.call('GET', '/api/projects', withCookie(idle.cookie)), 401, 'unauthorized', 'idle for longer than the setting');
  await s.call('PATCH', '/api/settings', { body: { sessionIdleMinutes: null } });
});

t.test('the session token under any other cookie name is not a session (a sibling subdomain can set those)', async (t) => {
  const { cookie } = await signIn(s.key);
  const token = cookie.split('=')[1]!;
  t.equal((await s.call('GET', '/api/projects', withCookie(cookie))).status, 200, 'under its own name it works');
  assertError(t, await s.call('GET', '/api/projects', withCookie(`slipway_session=${token}`)), 401, 'unauthorized', 'under the name without the prefix it is no credential');
});

t.test('a session ends sessionMaxHours after sign-in, however active', async (t) => {
  assertError(t, await s.call('PATCH', '/api/settings', { body: { sessionMaxHours: 0 } }), 400, 'validation_failed', 'at least an hour');
  assertError(t, await s.call('PATCH', '/api/settings', { body: { sessionMaxHours: 721 } }), 400, 'validation_failed', 'at most 30 days');
  const settings = (await s.call('GET', '/api/settings')).body.settings;
  t.match(settings, { sessionMaxHours: 12, sources: { sessionMaxHours: 'environment' } }, 'default 12 hours');

  const active = await signIn(s.key);
  await s.app.db.query(`update http_sessions set created_at = now() - interval '11 hours 59 minutes', last_seen_at = now()`);
  t.equal((await s.call('GET', '/api/projects', withCookie(active.cookie))).status, 200, 'within 12 hours of its sign-in');
  await s.app.db.query(`update http_sessions set created_at = now() - interval '12 hours 1 second', last_seen_at = now()`);
  assertError(t, await s.call('GET', '/api/projects', withCookie(active.cookie)), 401, 'unauthorized', 'past 12 hours, although used a moment ago');

  t.equal((await s.call('PATCH', '/api/settings', { body: { sessionMaxHours: 1 } })).status, 200);
  t.teardown(() => s.call('PATCH', '/api/settings', { body: { sessionMaxHours: null } }));
  const short = await signIn(s.key);
  t.equal(short.answer.body.session.maxHours, 1, 'the session says its lifetime');
  await s.app.db.query(`update http_sessions set created_at = now() - interval '61 minutes', last_seen_at = now()`);
  assertError(t, await s.call('GET', '/api/projects', withCookie(short.cookie)), 401, 'unauthorized', 'the setting applies');
});

t.test(`a key has at most ${MAX_SESSIONS_PER_KEY} live sessions: the oldest ends first`, async (t) => {
  const key = await createKey(s, 'write', null);
  const other = await signIn(s.key);
  const opened = [];
  for (let i = 0; i < MAX_SESSIONS_PER_KEY; i++) opened.push(await signIn(key.secret));
  for (const session of opened) t.equal((await s.call('GET', '/api/projects', withCookie(session.cookie))).status, 200);
  const newest = await signIn(key.secret);
  assertError(t, await s.call('GET', '/api/projects', withCookie(opened[0]!.cookie)), 401, 'unauthorized', 'the oldest session ended');
  for (const session of [...opened.slice(1), newest]) t.equal((await s.call('GET', '/api/projects', withCookie(session.cookie))).status, 200, 'the others live');
  t.equal((await s.call('GET', '/api/projects', withCookie(other.cookie))).status, 200, "another key's session is untouched");
  const { rows } = await s.app.db.query<{ n: number }>('select count(*)::int as n from http_sessions where key_hash = $1', [createHash('sha256').update(key.secret).digest('hex')]);
  t.equal(rows[0]!.n, MAX_SESSIONS_PER_KEY, 'no more are stored');
});

t.test('unknown keys at sign-in count toward the address’s limit; a good key still signs in from it', async (t) => {
  // Earlier tests of this file may have counted some failures already: at most 6 reach the limit of 5.
  const statuses: number[] = [];
  for (let i = 0; i < 6 && statuses.at(-1) !== 429; i++) statuses.push((await s.call('POST', '/api/sessions', { key: null, body: { key: `slw_wrong-${i}` } })).status);
  t.equal(statuses.at(-1), 429, 'unknown keys are limited');
  t.ok(statuses.slice(0, -1).every((status) => status === 401), `401 before that (${statuses.join(', ')})`);
  const good = await signIn(s.key);
  t.equal(good.answer.status, 200, 'a good key signs in from the limited address');
  t.equal((await s.call('GET', '/api/projects', withCookie(good.cookie))).status, 200, 'and its session is answered');
  t.equal((await s.call('GET', '/api/projects')).status, 200, 'so is the key itself');
});

t.test('guessed session cookies count toward the address’s limit too', async (t) => {
  const other = await startTestServer({ SLIPWAY_KEY_FAILURES_PER_MINUTE: '3' });
  t.teardown(() => other.close());
  for (let i = 0; i < 3; i++) {
    const guess = await other.call('GET', '/api/projects', withCookie(`__Host-slipway_session=guess-${i}`));
    assertError(t, guess, 401, 'unauthorized', `guess ${i}`);
  }
  assertError(t, await other.call('GET', '/api/projects', withCookie('__Host-slipway_session=guess-3')), 429, 'rate_limited', 'the next guess');
  const signedIn = await other.call('POST', '/api/sessions', { key: null, body: { key: other.key } });
  t.equal(signedIn.status, 200, 'a good key signs in from the limited address');
  const cookie = /__Host-slipway_session=[^;]+/.exec(signedIn.headers.get('set-cookie') ?? '')![0];
  t.equal((await other.call('GET', '/api/projects', withCookie(cookie))).status, 200, 'and its session is answered');
});
