import t from 'tap';
import { BatchWriter } from '../../projections/batch-writer.js';
import { envProjector } from '../../projections/env.js';
import type { RecordedEvent } from '../../src/eventstore/port.js';

const upsert = (id: string, value: string) => ({ table: 't', row: { id, value }, key: ['id'], update: ['value'] });

t.test('consecutive upserts of one shape become one statement', async (t) => {
  const out = new BatchWriter();
  out.upsert(upsert('a', '1'));
  out.upsert(upsert('b', '2'));
  const [statement, ...rest] = out.statements();
  t.same(rest, []);
  t.match(statement!.text, /insert into t \(id, value\) select id, value from json_populate_recordset\(null::t, \$1::json\)\s+on conflict \(id\) do update set value = excluded.value/);
  t.same(JSON.parse(statement!.params[0] as string), [{ id: 'a', value: '1' }, { id: 'b', value: '2' }]);
});

t.test('a repeated key or another statement keeps the order of the writes', async (t) => {
  const out = new BatchWriter();
  out.upsert(upsert('a', '1'));
  out.upsert(upsert('a', '2'));
  out.sql('delete from t where id = \'a\'');
  out.upsert(upsert('a', '3'));
  const statements = out.statements();
  t.equal(statements.length, 4);
  t.same(statements.map((s) => (s.params[0] ? JSON.parse(s.params[0] as string)[0].value : s.text)), ['1', '2', "delete from t where id = 'a'", '3']);
});

t.test('projectors are pure: events in, writes out', async (t) => {
  const event = (type: string, data: Record<string, unknown>, revision: number): RecordedEvent => ({
    id: `e${revision}`,
    type,
    schemaVersion: 1,
    data,
    metadata: { actor: 'test', correlationId: 'c', causationId: null },
    streamId: 'service-s1',
    revision,
    position: `0000000000000000000${revision}-00000000000000000001`,
    recordedAt: '2026-11-21T00:00:00.000Z',
  });
  const out = new BatchWriter();
  envProjector.applyBatch(
    [
      event('EnvVarSet', { envId: 'v1', key: 'A', value: 'enc:v1:s1:x' }, 1),
      event('EnvVarSet', { envId: 'v2', key: 'B', value: 'enc:v1:s1:y' }, 2),
      event('EnvVarDeleted', { envId: 'v1', key: 'A' }, 3),
      event('DomainAdded', { domainId: 'd1', hostname: 'a.example.com' }, 4),
    ],
    out,
  );
  const statements = out.statements();
  t.equal(statements.length, 2, 'two upserts merged, then the delete; the domain is not this read model');
  t.same(JSON.parse(statements[0]!.params[0] as string).map((r: { key: string }) => r.key), ['A', 'B']);
  t.equal(statements[1]!.text, "delete from rm_env where id = 'v1'");
});

t.test('the projectors’ idioms: an update of one row by id, a delete of the rows an owner holds', async (t) => {
  const out = new BatchWriter();
  out.updateById('rm_t', "it's", "status = 'done'");
  out.deleteOwnedBy('rm_t', 'service_id', 's1');
  out.deleteOwnedBy('rm_u', 'id', 7);
  t.same(out.statements(), [{ text: "update rm_t set status = 'done' where id = 'it''s';\ndelete from rm_t where service_id = 's1';\ndelete from rm_u where id = 7", params: [] }], 'values quoted as literals, run as one barrier');
});
