import { randomUUID } from 'node:crypto';
import t from 'tap';
import { LABEL, type ContainerSpec, type OutputLine } from '../../src/runtime/container-runtime.js';
import { createDockerRuntime } from '../../src/runtime/docker-runtime.js';
import { runToEnd } from '../../src/runtime/run-to-end.js';
import { docker, requireDocker, TEST_IMAGES } from '../helpers/docker.js';

t.test('a command in a container of its own, followed to its end', { skip: await requireDocker() }, async (t) => {
  const runtime = createDockerRuntime({ socketPath: '/var/run/docker.sock', callTimeoutMs: 30_000, instance: randomUUID() });
  const run = randomUUID().slice(0, 8);
  const network = `slipway-test-${run}`;
  await runtime.ensureNetwork(network, { [LABEL.project]: run });
  t.teardown(async () => {
    for (const c of await runtime.list({ [LABEL.project]: run })) await runtime.remove(c.name, 0);
    await docker.getNetwork(network).remove().catch(() => undefined);
  });
  const spec = (name: string, command: string[]): ContainerSpec => ({
    name: `slipway-test-${name}-${run}`,
    image: TEST_IMAGES.run,
    env: { GREETING: 'hello' },
    labels: { [LABEL.project]: run },
    network,
    aliases: [],
    internalPort: null,
    publish: false,
    command,
    privileges: 'app',
  });
  const options = (signal = new AbortController().signal, timeoutMs = 30_000) => {
    const lines: OutputLine[] = [];
    return { lines, o: { onLine: (l: OutputLine) => lines.push(l), timeoutMs, signal, graceSeconds: 1 } };
  };

  const ok = options();
  const done = await runToEnd(runtime, spec('ok', ['sh', '-c', 'echo "$GREETING"; sleep 0.2; echo oops >&2; exit 3']), ok.o);
  t.match(done, { outcome: 'exited', exitCode: 3, lastLines: ['hello', 'oops'] }, 'its exit code and its last lines');
  // Two pipes: lines written at the same moment on stdout and stderr may reach the engine in either order.
  t.same(ok.lines.map((l) => [l.stream, l.line]), [['stdout', 'hello'], ['stderr', 'oops']], 'each line as written, with its stream');

  const again = options();
  const read = await runToEnd(runtime, spec('ok', ['sh', '-c', 'echo a second run; exit 0']), again.o);
  t.match(read, { outcome: 'exited', exitCode: 3 }, 'a retried run of a container that ended reads its end, never runs it twice');
  t.same(again.lines.map((l) => l.line), ['hello', 'oops']);

  const slow = options(undefined, 1_000);
  const timedOut = await runToEnd(runtime, spec('slow', ['sleep', '30']), slow.o);
  t.match(timedOut, { outcome: 'timed_out', exitCode: null }, 'stopped past its time');
  t.ok(timedOut.durationMs < 10_000, `stopped within the grace (${timedOut.durationMs} ms)`);

  const cancel = new AbortController();
  const canceled = options(cancel.signal);
  const running = runToEnd(runtime, spec('cancel', ['sh', '-c', 'echo started; sleep 30']), canceled.o);
  while (canceled.lines.length === 0) await new Promise((r) => setTimeout(r, 50));
  cancel.abort();
  t.match(await running, { outcome: 'canceled', exitCode: null, lastLines: ['started'] }, 'canceled on request');
});
