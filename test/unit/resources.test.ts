import { availableParallelism } from 'node:os';
import t from 'tap';
import {
  effectiveResources,
  exitDescription,
  limitValues,
  memoryBytes,
  nanoCpus,
  normaliseCpus,
  normaliseMemory,
  outOfMemory,
} from '../../commands/service/resources.js';
import { resourcesBody } from '../../src/http/resource-bodies.js';
import { updateServiceBody } from '../../src/http/service-bodies.js';
import { privilegedHostConfig } from '../../src/runtime/container-privileges.js';
import { usageOf } from '../../src/runtime/docker-stats.js';
import type Docker from 'dockerode';

t.test('memory sizes: k, m, g in any case, binary units, plain bytes', async (t) => {
  t.equal(normaliseMemory('512m'), '512m');
  t.equal(normaliseMemory(' 512M '), '512m');
  t.equal(normaliseMemory('1G'), '1g');
  t.equal(normaliseMemory('1.5g'), '1.5g');
  t.equal(normaliseMemory('64mb'), '64m', 'a trailing b is allowed and dropped');
  t.equal(normaliseMemory(268435456), '268435456', 'plain bytes as a number');
  t.equal(normaliseMemory('268435456'), '268435456', 'plain bytes as a string');
  for (const bad of ['', 'm', '512x', '-5m', '1.5', '5 tb', '1e9', 'abc', '0x10m']) t.equal(normaliseMemory(bad), null, `refuses ${JSON.stringify(bad)}`);

  t.equal(memoryBytes('512m'), 512 * 1024 * 1024);
  t.equal(memoryBytes('1g'), 1024 ** 3);
  t.equal(memoryBytes('1.5g'), 1.5 * 1024 ** 3);
  t.equal(memoryBytes('64k'), 65536);
  t.equal(memoryBytes('6m'), 6291456);
  t.equal(memoryBytes('1000'), 1000);
  t.throws(() => memoryBytes('lots'));
});

t.test('CPUs: a decimal string or number, to nanocpus', async (t) => {
  t.equal(normaliseCpus('0.5'), '0.5');
  t.equal(normaliseCpus(0.5), '0.5');
  t.equal(normaliseCpus('.25'), '0.25');
  t.equal(normaliseCpus('2.50'), '2.5');
  t.equal(normaliseCpus('1'), '1');
  for (const bad of ['', 'half', '-1', '1e3', '0x1', '1,5']) t.equal(normaliseCpus(bad), null, `refuses ${JSON.stringify(bad)}`);
  t.equal(nanoCpus('0.5'), 500_000_000);
  t.equal(nanoCpus('1.25'), 1_250_000_000);
});

t.test('precedence: the service\'s own value (null: no limit), else the default, else none', async (t) => {
  const defaults = { memory: '512m', cpus: '1', pids: 256 };
  t.same(effectiveResources(undefined, defaults), { memory: '512m', memoryReservation: null, cpus: '1', pids: 256 }, 'no own values: the defaults');
  t.same(effectiveResources({}, defaults), { memory: '512m', memoryReservation: null, cpus: '1', pids: 256 });
  t.same(effectiveResources({ memory: '1g' }, defaults), { memory: '1g', memoryReservation: null, cpus: '1', pids: 256 }, 'own memory wins, the rest defaults');
  t.same(effectiveResources({ memory: null, cpus: null }, defaults), { memory: null, memoryReservation: null, cpus: null, pids: 256 }, 'null: no limit despite a default');
  t.same(effectiveResources({ cpus: '0.5' }, {}), { memory: null, memoryReservation: null, cpus: '0.5', pids: null }, 'no defaults');
  t.same(effectiveResources(null, null), { memory: null, memoryReservation: null, cpus: null, pids: null });
  t.same(
    effectiveResources({ memoryReservation: '1g' }, { memory: '256m' }),
    { memory: '256m', memoryReservation: '256m', cpus: null, pids: null },
    'an own reservation above a default limit is brought down to the limit',
  );
});

t.test('limits for the engine', async (t) => {
  t.same(limitValues({ memory: '64m', memoryReservation: '32m', cpus: '0.5', pids: 100 }), {
    memoryBytes: 64 * 1024 ** 2,
    memoryReservationBytes: 32 * 1024 ** 2,
    cpus: 0.5,
    pids: 100,
  });
  t.same(limitValues({ memory: null, memoryReservation: null, cpus: null, pids: null }), {}, 'no limit: nothing set');
});

t.test('host config: memory without extra swap, reservation, NanoCpus, pids capped by the profile', async (t) => {
  const app = privilegedHostConfig('app', { memoryBytes: 67108864, memoryReservationBytes: 33554432, cpus: 0.5, pids: 100 });
  t.match(app, { Memory: 67108864, MemorySwap: 67108864, MemoryReservation: 33554432, NanoCpus: 500_000_000, PidsLimit: 100 });
  t.equal(privilegedHostConfig('app', { pids: 60000 }).PidsLimit, 1024, 'a service cannot raise the profile\'s task limit');
  t.equal(privilegedHostConfig('database:mysql', { pids: 2000 }).PidsLimit, 2000);
  t.equal(privilegedHostConfig('database:columnar').PidsLimit, 4096);
  const none = privilegedHostConfig('app', {});
  t.notOk('Memory' in none || 'MemorySwap' in none || 'MemoryReservation' in none || 'NanoCpus' in none, 'no limits: the engine\'s defaults');
});

t.test('out of memory in words', async (t) => {
  t.equal(outOfMemory('512m'), 'out of memory (limit 512m)');
  t.equal(outOfMemory(null), 'out of memory');
  t.equal(exitDescription({ exitCode: 137, oomKilled: true }, '64m'), 'was killed: out of memory (limit 64m)');
  t.equal(exitDescription({ exitCode: 3, oomKilled: false }, '64m'), 'exited with code 3');
  t.equal(exitDescription({ exitCode: null }, null), 'exited with code unknown');
});

t.test('the API edge: human units in, canonical form out, clear refusals', async (t) => {
  t.same(resourcesBody.parse({ memory: '512M', memoryReservation: 268435456, cpus: 0.5, pids: 512 }), {
    memory: '512m',
    memoryReservation: '268435456',
    cpus: '0.5',
    pids: 512,
  });
  t.same(resourcesBody.parse({ memory: null }), { memory: null }, 'null kept: no limit; absent keys stay absent');
  const refusal = (body: unknown) => {
    const r = resourcesBody.safeParse(body);
    return r.success ? null : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
  };
  t.match(refusal({ memory: '5m' }), /memory: must be at least 6m/);
  t.match(refusal({ memory: '1 potato' }), /memory: must be a size/);
  t.match(refusal({ memory: '128m', memoryReservation: '256m' }), /memoryReservation: must not be above memory/);
  t.match(refusal({ cpus: 0 }), /cpus: must be a decimal number of CPUs/);
  t.match(refusal({ cpus: '-1' }), /cpus/);
  t.match(refusal({ cpus: availableParallelism() + 1 }), /this host's CPU count/);
  t.equal(refusal({ cpus: availableParallelism() }), null, 'all of the host\'s CPUs');
  t.match(refusal({ pids: 15 }), /pids: must be a whole number of tasks from 16 to 65536/);
  t.match(refusal({ pids: 65537 }), /pids: must be a whole number/);
  t.match(refusal({ pids: 'many' }), /pids: must be a whole number/);
  t.match(refusal({ memory: true }), /memory: must be a size/, 'a wrong type gets the same hint');
  t.match(refusal({ cpus: [1] }), /cpus: must be a decimal number of CPUs/);
  t.match(refusal({ memmory: '1g' }), /memmory|Unrecognized/, 'a misspelt key is refused, not ignored');

  t.same(updateServiceBody.parse({ resources: null }), { resources: {} }, 'PATCH resources: null puts every key back to the default');
  t.same(updateServiceBody.parse({ resources: { cpus: '1' } }), { resources: { cpus: '1' } });
});

t.test('Docker stats as `docker stats` shows them', async (t) => {
  const sample = {
    cpu_stats: { cpu_usage: { total_usage: 3_000_000_000, percpu_usage: [1, 2] }, system_cpu_usage: 20_000_000_000, online_cpus: 2 },
    precpu_stats: { cpu_usage: { total_usage: 2_000_000_000 }, system_cpu_usage: 18_000_000_000 },
    memory_stats: { usage: 50_000_000, limit: 67_108_864, stats: { total_inactive_file: 10_000_000 } },
    pids_stats: { current: 7 },
  } as unknown as Docker.ContainerStats;
  t.same(usageOf(sample), { cpuPercent: 100, memoryBytes: 40_000_000, memoryLimitBytes: 67_108_864, pids: 7 }, 'one CPU of two busy: 100 %');
  const stopped = { cpu_stats: sample.cpu_stats, precpu_stats: {}, memory_stats: {} } as unknown as Docker.ContainerStats;
  t.equal(usageOf(stopped), null, 'a stopped container has no memory reading');
});
