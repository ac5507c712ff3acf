import t from 'tap';
import { backoffMs, MAX_PAUSE_MS, nextPause } from '../../src/catch-up/pause.js';
import { statusOf } from '../../src/catch-up/status.js';

t.test('one backoff: 250 ms doubled with each failure, up to its cap', async (t) => {
  t.same([1, 2, 3, 4, 5, 6, 10].map((n) => backoffMs(n)), [250, 500, 1000, 2000, 4000, MAX_PAUSE_MS, MAX_PAUSE_MS]);
  t.equal(backoffMs(8, 30_000), 30_000, 'a retry of failing events has a cap of its own');
  t.equal(backoffMs(0), 250, 'never below the first step');
});

t.test('a pause that goes on keeps its start and counts its failures', async (t) => {
  const first = nextPause(null, 'lock timeout', ['projects'], 1_000);
  t.match(first, { holds: ['projects'], error: 'lock timeout', failures: 1, retryAt: 1_250 });
  const second = nextPause(first, 'connection lost', ['projects', 'services'], 2_000);
  t.same(second.since, first.since, 'one pause, not a new one per retry');
  t.match(second, { error: 'connection lost', failures: 2, retryAt: 2_500, holds: ['projects', 'services'] });
});

t.test('health shows a consumer paused only when the pause holds it', async (t) => {
  const pause = nextPause(null, 'lock timeout', ['projects']);
  t.same(statusOf('projects', 'p1', pause), { name: 'projects', position: 'p1', state: 'paused', error: 'lock timeout', pausedSince: pause.since });
  t.same(statusOf('services', 'p1', pause), { name: 'services', position: 'p1', state: 'running', error: null, pausedSince: null });
  t.same(statusOf('deployer', null, null), { name: 'deployer', position: null, state: 'running', error: null, pausedSince: null });
});
