import { randomUUID } from 'node:crypto';
import t from 'tap';
import { DeploymentLog } from '../../src/processes/deployment/toolkit/deployment-log.js';
import { createProject, createService, testWebService } from '../helpers/http-resources.js';
import { waitFor } from '../helpers/net.js';
import { startTestServer } from '../helpers/test-server.js';

// The deployer writes its own lines from 1: this test's start far above them.
let next = 10_000;

const s = await startTestServer();
t.teardown(() => s.close());
const project = await createProject(s, 'Logs');
const service = await createService(s, project.id, testWebService('web'));
const deployment = (await s.call('POST', `/api/services/${service.id}/deployments`)).body.deployment as { id: string };

// A real refusal by the database: a trigger on the event table refuses log chunks that carry a marker,
// the first two tries (`refuse-twice`) or every try (`refuse-always`). Refusals are counted by sequences,
// which a failed transaction does not roll back.
await s.app.db.exec(`
  create sequence test_refused_twice; create sequence test_refused_always;
  create function test_refuse_log() returns trigger language plpgsql as $$
  begin
    if new.data::text like '%refuse-twice%' and nextval('test_refused_twice') <= 2 then raise exception 'the test refuses this chunk for now'; end if;
    if new.data::text like '%refuse-always%' then perform nextval('test_refused_always'); raise exception 'the test refuses this chunk'; end if;
    return new;
  end $$;
  create trigger test_refuse_log before insert on es_events for each row when (new.type = 'DeploymentLogAppended') execute function test_refuse_log();
`);

function deploymentLog() {
  const first = next;
  next += 1000;
  return { first, log: new DeploymentLog(s.app.store, deployment.id, (l) => l, { actor: 'test', correlationId: randomUUID(), causationId: null }, first) };
}

async function linesFrom(first: number, count: number): Promise<{ id: number; line: string; stream: string }[]> {
  const all = await waitFor(
    `log lines from ${first}`,
    async () => (await s.call('GET', `/api/deployments/${deployment.id}/logs`)).body.logs as { id: number; line: string; stream: string }[],
    (logs) => logs.filter((l) => l.id >= first && l.id < first + 1000).length >= count,
    15_000,
  );
  return all.filter((l) => l.id >= first && l.id < first + 1000);
}

const counted = async (sequence: string) => (await s.app.db.query<{ n: string }>(`select last_value::text as n from ${sequence}`)).rows[0]!.n;

t.test('a line longer than the cut, of characters outside the BMP, is stored and read back whole up to the cut', async (t) => {
  const { first, log } = deploymentLog();
  // One unit before the emoji puts the cut between the halves of a surrogate pair.
  const line = 'x' + '😀'.repeat(3000);
  log.write(line);
  log.write('the next line');
  await log.flush();
  const stored = await linesFrom(first, 2);
  t.equal(stored[0]!.line, 'x' + '😀'.repeat(2047) + ' … [line truncated]', 'cut before the pair, not inside it');
  t.equal(stored[1]!.line, 'the next line', 'and the lines of its chunk are there too');
});

t.test('a chunk the database refuses at first is stored by a later try, once', async (t) => {
  const { first, log } = deploymentLog();
  log.write('refuse-twice: the first tries fail');
  log.write('second line of the chunk');
  await log.flush();
  t.equal(await counted('test_refused_twice'), '3', 'refused twice, then taken');
  const stored = await linesFrom(first, 2);
  t.same(stored.map((l) => l.line), ['refuse-twice: the first tries fail', 'second line of the chunk']);
  const events = (await s.call('GET', `/api/events?limit=1000&stream=deploymentlog-${deployment.id}`)).body.events as { data: { first: number } }[];
  t.equal(events.filter((e) => e.data.first === first).length, 1, 'one event for the chunk');
});

t.test('a chunk the database keeps refusing leaves a line saying how many lines were lost and why', async (t) => {
  const { first, log } = deploymentLog();
  log.write('one');
  log.write('refuse-always');
  log.write('three');
  await log.flush();
  t.ok(Number(await counted('test_refused_always')) >= 3, 'tried more than once');
  const stored = await linesFrom(first, 1);
  t.same(
    stored.map((l) => [l.line, l.stream]),
    [['[slipway] 3 log lines could not be stored: the test refuses this chunk', 'system']],
  );
  log.write('after the loss');
  await log.flush();
  t.equal((await linesFrom(first, 2))[1]!.line, 'after the loss', 'later lines are stored as before');
});

t.test('a line after a quiet spell goes at once; a burst goes as one event', async (t) => {
  const { first, log } = deploymentLog();
  const chunks = async () =>
    (await s.app.db.query<{ n: number }>(`select count(*)::int as n from es_events where stream_id = $1 and type = 'DeploymentLogAppended' and data::text like '%"quiet-%'`, [`deploymentlog-${deployment.id}`])).rows[0]!.n;
  log.write('quiet-1');
  await linesFrom(first, 1);
  for (let i = 2; i <= 101; i++) log.write(`quiet-${i}`);
  await linesFrom(first, 101);
  t.equal(await chunks(), 2, 'the lone line in one event, the burst of 100 in one more');
});
