import t from 'tap';
import { apiKey } from '../../commands/api-key/aggregate.js';
import { apiKeyEvents, parseApiKeyEvent } from '../../commands/api-key/events.js';
import { parseDatabaseEvent } from '../../commands/database/events.js';
import { currentSchemaVersion, upcast, upcasting } from '../../commands/upcasters.js';
import { auditData } from '../../projections/audit-redaction.js';
import { deciderSpec } from '../helpers/decider-spec.js';

// ApiKeyCreated exactly as schema version 1 wrote it (before `scope`).
const v1 = (projectIds: string[] | null) => ({ name: 'ci', access: 'read', projectIds, secretHash: 'h', prefix: 'slw_abcdef' });

t.test('ApiKeyCreated v1 is upcast to v3 (scope, then no owner) and parses under the current schema', async (t) => {
  const all = upcast({ type: 'ApiKeyCreated', schemaVersion: 1, data: v1(null) });
  t.same(all, { name: 'ci', access: 'read', scope: { kind: 'all' }, secretHash: 'h', prefix: 'slw_abcdef', ownerUserId: null }, 'null was every project; an old key belongs to no one');
  t.same(apiKeyEvents.ApiKeyCreated.parse(all).scope, { kind: 'all' });

  const some = upcast({ type: 'ApiKeyCreated', schemaVersion: 1, data: v1(['p1', 'p2', 'p1']) });
  t.same(some.scope, { kind: 'projects', projectIds: ['p1', 'p2'] }, 'listed projects, each once');
  t.notOk('projectIds' in some, 'the v1 field is gone');

  t.same(parseApiKeyEvent({ type: 'ApiKeyCreated', schemaVersion: 1, data: v1(['p1']) }), {
    type: 'ApiKeyCreated',
    data: { name: 'ci', access: 'read', scope: { kind: 'projects', projectIds: ['p1'] }, secretHash: 'h', prefix: 'slw_abcdef', ownerUserId: null },
  }, 'the parser that projectors and aggregates use upcasts first');
  t.equal(apiKey.evolve(apiKey.initial, parseApiKeyEvent({ type: 'ApiKeyCreated', schemaVersion: 1, data: v1(null) })!).status, 'active');
});

t.test('v2 is strict about the scope; v3 data is not upcast again', async (t) => {
  t.throws(() => parseApiKeyEvent({ type: 'ApiKeyCreated', schemaVersion: 2, data: v1(null) }), /scope/, 'v1 data labelled v2 is refused');
  t.throws(() => parseApiKeyEvent({ type: 'ApiKeyCreated', schemaVersion: 2, data: { ...v1(null), scope: { kind: 'some' } } }));
  const v3 = { name: 'ci', access: 'read', scope: { kind: 'all' }, secretHash: 'h', prefix: 'p', ownerUserId: 'u1' };
  t.equal(parseApiKeyEvent({ type: 'ApiKeyCreated', schemaVersion: 3, data: v3 })!.data.ownerUserId, 'u1', 'a v3 owner stays');
  t.equal(currentSchemaVersion('ApiKeyCreated'), 3);
  t.equal(upcast({ type: 'ApiKeyCreated', schemaVersion: 3, data: v3 }), v3, 'current data passes through untouched');
  t.same(upcast({ type: 'ApiKeyCreated', schemaVersion: 2, data: { ...v3, ownerUserId: undefined } }).ownerUserId, null, 'a v2 key belongs to no one');
  t.throws(() => upcast({ type: 'ApiKeyCreated', schemaVersion: 1, data: { name: 'x' } }), 'v1 data without projectIds is not guessed at');
});

t.test('the chain runs one version at a time, from the event\'s own version', async (t) => {
  const calls: string[] = [];
  const { upcast: up, currentSchemaVersion: current } = upcasting({
    'Renamed@1': (d) => (calls.push('1→2'), { ...d, b: d.a, a: undefined }),
    'Renamed@2': (d) => (calls.push('2→3'), { b: d.b, c: `${String(d.b)}!` }),
  });
  t.same(up({ type: 'Renamed', schemaVersion: 1, data: { a: 'x' } }), { b: 'x', c: 'x!' });
  t.same(calls, ['1→2', '2→3'], 'in order, each once');
  calls.length = 0;
  t.same(up({ type: 'Renamed', schemaVersion: 2, data: { b: 'y' } }), { b: 'y', c: 'y!' });
  t.same(calls, ['2→3'], 'a v2 event skips the first step');
  calls.length = 0;
  const v3 = { b: 'z', c: 'z!' };
  t.equal(up({ type: 'Renamed', schemaVersion: 3, data: v3 }), v3);
  t.same(calls, [], 'the current version is not touched');
  t.equal(current('Renamed'), 3, 'one past the highest upcaster');
});

t.test('unknown types and versions pass through; current versions', async (t) => {
  const data = { anything: 1 };
  t.equal(upcast({ type: 'NoSuchEvent', schemaVersion: 1, data }), data, 'an unknown type');
  t.equal(upcast({ type: 'ApiKeyCreated', schemaVersion: 9, data }), data, 'a version from the future');
  t.equal(upcast({ type: 'ProjectCreated', schemaVersion: 1, data }), data, 'a type with no upcaster');
  t.equal(currentSchemaVersion('ApiKeyCreated'), 3);
  t.equal(currentSchemaVersion('ApiKeyRevoked'), 1);
  t.equal(currentSchemaVersion('NoSuchEvent'), 1);
});

t.test('new ApiKeyCreated events are written in the v3 shape', async (t) => {
  const base = { name: 'ci', access: 'read' as const, secretHash: 'h', prefix: 'p', ownerUserId: null };
  const none = deciderSpec(apiKey).given();
  none.when('create', { ...base, projectIds: null }).then(t, [{ type: 'ApiKeyCreated', data: { ...base, scope: { kind: 'all' } } }]);
  t.same(none.when('create', { ...base, projectIds: ['a', 'b', 'a'] }).events[0]!.data, { ...base, scope: { kind: 'projects', projectIds: ['a', 'b'] } });
  none.when('create', { ...base, projectIds: [] }).thenThrows(t, { code: 'validation_failed' }, 'a key that sees no project is refused');
  for (const event of none.when('create', { ...base, projectIds: ['a'] }).events) {
    t.ok(apiKeyEvents[event.type].safeParse(event.data).success, 'what decide writes parses under the current schema');
  }
});

t.test('DatabaseQueryRun v1 held the statement in clear: upcast and audited, its literals are masked', async (t) => {
  const v1Data = { serviceId: 's', projectId: 'p', engine: 'postgres', statement: "ALTER USER app PASSWORD 'S3cret'" };
  const parsed = parseDatabaseEvent({ type: 'DatabaseQueryRun', schemaVersion: 1, data: v1Data });
  t.same(parsed?.data, { serviceId: 's', projectId: 'p', engine: 'postgres', statement: "ALTER USER app PASSWORD '…'", sealedStatement: null });
  t.equal(currentSchemaVersion('DatabaseQueryRun'), 2);
  t.same(auditData('DatabaseQueryRun', v1Data).statement, "ALTER USER app PASSWORD '…'", 'what auditors read of a v1 event');
  const v2 = auditData('DatabaseQueryRun', { ...v1Data, statement: 'ALTER USER app PASSWORD [redacted]', sealedStatement: 'enc:v1:s:abc' });
  t.same(v2, { serviceId: 's', projectId: 'p', engine: 'postgres', statement: 'ALTER USER app PASSWORD [redacted]', sealedStatement: '[encrypted]' }, 'and of a v2 event');
});

t.test('v2 events whose statement the old password patterns let through are masked when read', async (t) => {
  const leaked: [string, string, string][] = [
    ['postgres', "ALTER USER app PASSWORD U&'S3cret'", "ALTER USER app PASSWORD '…'"],
    ['postgres', "ALTER USER app PASSWORD /* c */ 'S3cret'", "ALTER USER app PASSWORD /* … */ '…'"],
    ['timeseries', "EXECUTE format('ALTER USER app PASSWORD %L', 'S3cret')", "EXECUTE format('…', '…')"],
    ['mysql', "SET PASSWORD = # c\n'S3cret'", "SET PASSWORD = -- …\n'…'"],
    ['columnar', "INSERT INTO secrets VALUES ('S3cret')", "INSERT INTO secrets VALUES ('…')"],
    ['redis', 'SET api-token S3cret', 'SET api-token ?'],
    ['mongodb', '{"updateUser": "app", "pwd" : "S3cret"}', '{"updateUser":"…","pwd":"…"}'],
  ];
  for (const [engine, statement, masked] of leaked) {
    const data = { serviceId: 's', projectId: 'p', engine, statement, sealedStatement: 'enc:v1:s:abc' };
    t.equal(auditData('DatabaseQueryRun', data).statement, masked, `${engine}: ${statement}`);
    const event = parseDatabaseEvent({ type: 'DatabaseQueryRun', schemaVersion: 2, data });
    t.equal(event?.type === 'DatabaseQueryRun' ? event.data.statement : null, statement, 'the event itself is not rewritten');
  }
  t.match(auditData('DatabaseQueryRun', { serviceId: 's', projectId: 'p', statement: "PASSWORD 'S3cret'", sealedStatement: null }).statement,
    /^\[unreadable statement, sha256:[0-9a-f]{16}\]$/, 'a statement whose engine is not known is not shown');
});
