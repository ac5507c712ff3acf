import { createHash } from 'node:crypto';
import t from 'tap';
import { apiKey } from '../../commands/api-key/aggregate.js';
import { hashApiKeySecret, generateApiKeySecret } from '../../commands/api-key/secret.js';
import { reservation } from '../../commands/reservation/aggregate.js';
import { deciderSpec } from '../helpers/decider-spec.js';

const reservations = deciderSpec(reservation);
const apiKeys = deciderSpec(apiKey);

t.test('reservations: one owner at a time, reusable after release', async (t) => {
  const taken = reservations.given().when('reserve', 'hostname', 'a.example.com', 'svc-1', 'hostname a.example.com').given();
  t.equal(taken.state.owner, 'svc-1');
  taken.when('reserve', 'hostname', 'a.example.com', 'svc-1', 'x').then(t, [], 'the owner may claim again');
  taken.when('reserve', 'hostname', 'a.example.com', 'svc-2', 'hostname a.example.com').thenThrows(t, {
    code: 'conflict',
    message: 'hostname a.example.com is already taken',
  });
  taken.when('release', 'hostname', 'a.example.com', 'svc-2').then(t, [], 'only the owner releases');
  const free = taken.when('release', 'hostname', 'a.example.com', 'svc-1').given();
  t.equal(free.state.owner, null);
  t.equal(free.when('reserve', 'hostname', 'a.example.com', 'svc-2', 'x').events.length, 1);
});

t.test('api keys: created once, revoked once', async (t) => {
  const data = { name: 'ci', access: 'read' as const, projectIds: null, secretHash: 'h', prefix: 'slw_abc', ownerUserId: null };
  const active = apiKeys.given().when('create', data).given();
  t.equal(active.state.status, 'active');
  active.when('create', data).thenThrows(t, { code: 'conflict' });
  const revoked = active.when('revoke').given();
  t.equal(revoked.state.status, 'revoked');
  revoked.when('revoke').then(t, []);
  apiKeys.given().when('revoke').thenThrows(t, { code: 'not_found' });
});

t.test('api key secrets are random and stored only as a hash', async (t) => {
  const a = generateApiKeySecret();
  const b = generateApiKeySecret();
  t.not(a.secret, b.secret);
  t.match(a.secret, /^slw_[A-Za-z0-9_-]{43}$/);
  t.equal(a.hash, createHash('sha256').update(a.secret).digest('hex'), 'the SHA-256 of the key');
  t.equal(hashApiKeySecret('slw_known'), 'e874175a1f4fe9e1b088effef794fc6ae895df1bf1dface2dc3252286fc34219', 'a known SHA-256 vector');
  t.notMatch(a.hash, a.secret);
  t.equal(a.prefix, a.secret.slice(0, 10));
});

t.test('aggregate state cache keeps the most recently used states', async (t) => {
  const { AggregateStateCache } = await import('../../commands/shared/state-cache.js');
  const cache = new AggregateStateCache(2);
  cache.confirm('a', { state: { n: 1 }, revision: 0, lastEventId: 'a0' });
  cache.confirm('b', { state: { n: 2 }, revision: 3, lastEventId: 'b3' });
  t.same(cache.written('a'), { state: { n: 1 }, revision: 0, lastEventId: 'a0' });
  cache.confirm('c', { state: { n: 3 }, revision: 1, lastEventId: 'c1' });
  t.equal(cache.written('b'), undefined, 'the least recently used entry went');
  t.ok(cache.written('a') && cache.written('c'));
});

t.test('a load never starts from a state that assumes appends not yet written', async (t) => {
  const { AggregateStateCache } = await import('../../commands/shared/state-cache.js');
  const cache = new AggregateStateCache();
  cache.confirm('s', { state: 'one', revision: 0, lastEventId: 'e0' });
  cache.assume('s', { state: 'two', revision: 1, lastEventId: 'e1' });
  t.same(cache.written('s'), { state: 'one', revision: 0, lastEventId: 'e0' }, 'the written state stays what the log holds');
  t.same(cache.tip('s'), { state: 'two', revision: 1, lastEventId: 'e1' }, 'the next command in line decides on the tip');
  cache.confirm('s', { state: 'one', revision: 0, lastEventId: 'e0' });
  t.equal(cache.tip('s')?.revision, 1, 'an older confirmation leaves the tip ahead');
  cache.confirm('s', { state: 'two', revision: 1, lastEventId: 'e1' });
  t.same(cache.written('s'), cache.tip('s'), 'once written, the tip is the written state');
});
