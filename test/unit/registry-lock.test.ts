import t from 'tap';
import { RegistryLock } from '../../src/cluster/registry-lock.js';

const opened = () => {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  return { gate, open };
};
const tick = () => new Promise((r) => setImmediate(r));

t.test('the registry lock: pushes share it, a garbage collection waits for them and has it alone', async (t) => {
  const lock = new RegistryLock();
  const order: string[] = [];
  const first = opened();
  const second = opened();
  const pushA = lock.push(async () => {
    order.push('push A starts');
    await first.gate;
    order.push('push A ends');
  });
  const pushB = lock.push(async () => {
    order.push('push B starts');
    await second.gate;
    order.push('push B ends');
  });
  await tick();
  t.same(order, ['push A starts', 'push B starts'], 'two pushes run together');

  const collecting = opened();
  const collection = lock.collect(async () => {
    order.push('collection starts');
    await collecting.gate;
    order.push('collection ends');
  });
  const pushC = lock.push(async () => {
    order.push('push C');
  });
  first.open();
  await tick();
  t.notOk(order.includes('collection starts'), 'the collection waits while a push is under way');
  second.open();
  await tick();
  await tick();
  t.ok(order.includes('collection starts'), 'and starts when the last one ended');
  t.notOk(order.includes('push C'), 'a push asked for meanwhile waits for the collection');
  collecting.open();
  await Promise.all([pushA, pushB, collection, pushC]);
  t.same(order.slice(-2), ['collection ends', 'push C'], 'and runs after it');
});

t.test('a failed collection frees the lock', async (t) => {
  const lock = new RegistryLock();
  await t.rejects(lock.collect(async () => Promise.reject(new Error('exit 1'))), /exit 1/);
  t.equal(await lock.push(async () => 'pushed'), 'pushed');
  await lock.collect(async () => undefined);
  t.pass('another collection runs');
});

t.test('collections run one at a time', async (t) => {
  const lock = new RegistryLock();
  let running = 0;
  let most = 0;
  const collect = () =>
    lock.collect(async () => {
      running += 1;
      most = Math.max(most, running);
      await tick();
      running -= 1;
    });
  await Promise.all([collect(), collect(), collect()]);
  t.equal(most, 1);
});
