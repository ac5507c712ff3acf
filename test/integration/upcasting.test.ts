import { randomUUID } from 'node:crypto';
import t from 'tap';
import { apiKey } from '../../commands/api-key/aggregate.js';
import { generateApiKeySecret } from '../../commands/api-key/secret.js';
import { loadAggregate } from '../../commands/shared/execute.js';
import { createProject } from '../helpers/api-suite.js';
import { startTestServer } from '../helpers/test-server.js';

t.test('an ApiKeyCreated written in schema version 1 is read by the read model and the aggregate', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  const seen = await createProject(s, 'Seen');
  const hidden = await createProject(s, 'Hidden');

  // As version 1 wrote it: `projectIds`, null meaning every project. Straight into the store.
  const oldKey = async (projectIds: string[] | null) => {
    const id = randomUUID();
    const { secret, prefix, hash } = generateApiKeySecret();
    const { position } = await s.app.store.append(
      `apikey-${id}`,
      [
        {
          id: randomUUID(),
          type: 'ApiKeyCreated',
          schemaVersion: 1,
          data: { name: `v1 ${projectIds ? 'scoped' : 'all'}`, access: 'read', projectIds, secretHash: hash, prefix },
          metadata: { actor: 'test', correlationId: randomUUID(), causationId: null },
        },
      ],
      'no_stream',
    );
    await s.app.settle(position);
    return { id, secret };
  };
  const scoped = await oldKey([seen.id]);
  const all = await oldKey(null);

  const keys = (await s.call('GET', '/api/keys')).body.keys as { id: string; projectIds: string[] | null }[];
  t.same(keys.find((k) => k.id === scoped.id)?.projectIds, [seen.id], 'the read model has the listed project');
  t.equal(keys.find((k) => k.id === all.id)?.projectIds, null, 'and "every project" for null');

  const visible = async (secret: string) =>
    ((await s.call('GET', '/api/projects', { key: secret })).body.projects as { id: string }[]).map((p) => p.id).sort();
  t.same(await visible(scoped.secret), [seen.id], 'the scoped key sees its project only');
  t.same(await visible(all.secret), [seen.id, hidden.id].sort(), 'the all-project key sees both');

  const ctx = s.app.commandContext('test');
  t.equal((await loadAggregate(ctx, apiKey, scoped.id)).state.status, 'active', 'the aggregate reads the v1 event');
  t.equal((await s.call('DELETE', `/api/keys/${scoped.id}`)).status, 200, 'so the key can be revoked');
  t.equal((await s.call('GET', '/api/projects', { key: scoped.secret })).status, 401, 'and is refused from then on');

  // What Slipway writes now is version 3 (an installation key: no owner).
  const created = await s.call('POST', '/api/keys', { body: { name: 'new', access: 'read', projectIds: [hidden.id] } });
  const [recorded] = await s.app.store.readStream(`apikey-${created.body.key.id}`);
  t.equal(recorded!.schemaVersion, 3);
  t.equal(recorded!.data.ownerUserId, null);
  t.same(recorded!.data.scope, { kind: 'projects', projectIds: [hidden.id] });
  t.same(created.body.key.projectIds, [hidden.id], 'read back the same way');
});

t.test('DatabaseQueryRun events written before statements were masked are masked in the history the API returns', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  const project = await createProject(s, 'Console');
  // As earlier versions wrote them, straight into the store: v1 in clear, v2 with only password patterns redacted.
  const written: [number, string, string][] = [
    [1, 'postgres', "ALTER USER app PASSWORD U&'S3cret-one'"],
    [2, 'postgres', "ALTER USER app PASSWORD /* c */ 'S3cret-two'"],
    [2, 'mysql', "SET PASSWORD = # c\n'S3cret-three'"],
    [2, 'redis', 'SET api-token S3cret-four'],
    [2, 'mongodb', '{"updateUser": "app", "pwd" : "S3cret-five"}'],
  ];
  let position = '';
  for (const [schemaVersion, engine, statement] of written) {
    const data = { serviceId: 'svc-old', projectId: project.id, engine, statement, ...(schemaVersion === 2 ? { sealedStatement: null } : {}) };
    ({ position } = await s.app.store.append(
      'database-svc-old',
      [{ id: randomUUID(), type: 'DatabaseQueryRun', schemaVersion, data, metadata: { actor: 'test', correlationId: randomUUID(), causationId: null } }],
      'any',
    ));
  }
  await s.app.settle(position);
  const history = await s.call('GET', `/api/projects/${project.id}/events?limit=1000`);
  t.equal(history.status, 200);
  const statements = (history.body.events as { type: string; data: { statement: string } }[])
    .filter((e) => e.type === 'DatabaseQueryRun')
    .map((e) => e.data.statement);
  t.same(statements, [
    "ALTER USER app PASSWORD '…'",
    "ALTER USER app PASSWORD /* … */ '…'",
    "SET PASSWORD = -- …\n'…'",
    'SET api-token ?',
    '{"updateUser":"…","pwd":"…"}',
  ]);
  t.notMatch(JSON.stringify(history.body), /S3cret/, 'no secret anywhere in the history');
});
