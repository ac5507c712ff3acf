import { EventEmitter } from 'node:events';
import { UnavailableError, type AllStreamResolvedEvent, type Filter, type ReadPosition, type RegexFilter } from '@eventstore/db-client';
import t from 'tap';
import { watchAll, type AllSubscriber, type LiveSubscription } from '../../src/eventstore/eventstoredb-watch.js';

class FakeSubscription extends EventEmitter implements LiveSubscription {
  unsubscribed = false;
  constructor(readonly from: ReadPosition, readonly filter: Filter) {
    super();
  }
  async unsubscribe() {
    this.unsubscribed = true;
  }
  deliver(offset: number) {
    const position = { commit: BigInt(offset), prepare: BigInt(offset) };
    const resolved = { event: { streamId: 's-1', type: 'T', position } } as AllStreamResolvedEvent;
    this.emit('data', resolved);
  }
}

function fakeClient(): AllSubscriber & { subscriptions: FakeSubscription[]; at: number[] } {
  const started = Date.now();
  const client = {
    subscriptions: [] as FakeSubscription[],
    at: [] as number[],
    subscribeToAll({ fromPosition, filter }: { fromPosition: ReadPosition; filter: Filter }) {
      const subscription = new FakeSubscription(fromPosition, filter);
      client.subscriptions.push(subscription);
      client.at.push(Date.now() - started);
      return subscription;
    },
  };
  return client;
}

const until = async (check: () => boolean) => {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  if (!check()) throw new Error('condition not met in time');
};
const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

t.test('a live subscription from the end, without system events, wakes on each event', async (t) => {
  const client = fakeClient();
  let wakes = 0;
  const stop = watchAll(client, () => wakes++);
  const [first] = client.subscriptions;
  t.equal(first!.from, 'end');
  t.match(first!.filter, { filterOn: 'eventType', regex: '^(?!\\$)(?!SlipwayEventIdClaimed$)' });
  const regex = new RegExp((first!.filter as RegexFilter).regex);
  t.ok(regex.test('ProjectCreated') && !regex.test('$statsCollected') && !regex.test('SlipwayEventIdClaimed'), 'the filter keeps Slipway events only');
  first!.emit('confirmation');
  first!.deliver(100);
  first!.deliver(200);
  t.equal(wakes, 2, 'one per event (the reader reads anyway when it starts)');
  await stop();
  t.ok(first!.unsubscribed, 'stop unsubscribes');
  first!.deliver(300);
  t.equal(wakes, 2, 'nothing wakes after stop');
});

t.test('an error resubscribes from the last event seen, with a growing delay', async (t) => {
  const client = fakeClient();
  const errors: unknown[] = [];
  let wakes = 0;
  const stop = watchAll(client, () => wakes++, { firstDelayMs: 40, maxDelayMs: 100, onError: (e) => errors.push(e) });
  client.subscriptions[0]!.deliver(100);
  client.subscriptions[0]!.deliver(250);
  client.subscriptions[0]!.emit('error', new UnavailableError(undefined, 'server went away'));
  t.ok(client.subscriptions[0]!.unsubscribed, 'the failed subscription is let go');
  await until(() => client.subscriptions.length === 2);
  t.same(client.subscriptions[1]!.from, { commit: 250n, prepare: 250n }, 'from the last event seen');
  // Failing again and again: the delay doubles up to the cap.
  client.subscriptions[1]!.emit('end');
  await until(() => client.subscriptions.length === 3);
  client.subscriptions[2]!.emit('error', new Error('again'));
  await until(() => client.subscriptions.length === 4);
  client.subscriptions[3]!.emit('error', new Error('and again'));
  await until(() => client.subscriptions.length === 5);
  const gaps = client.at.slice(1).map((at, i) => at - client.at[i]!);
  t.ok(gaps[0]! >= 35, `first retry waits (${gaps[0]} ms)`);
  t.ok(gaps[1]! >= 75, `second waits twice as long (${gaps[1]} ms)`);
  t.ok(gaps[3]! >= 95 && gaps[3]! < 180, `capped (${gaps[3]} ms)`);
  t.equal(errors.length, 4, 'each failure is reported');
  t.equal(client.subscriptions[2]!.listenerCount('data'), 1);
  t.equal(wakes, 2);
  client.subscriptions[4]!.emit('confirmation');
  t.equal(wakes, 3, 'a confirmed resubscription wakes the reader: what came meanwhile is read now');
  client.subscriptions[4]!.emit('confirmation');
  t.equal(wakes, 3, 'once');
  await stop();
});

t.test('stopping during the delay cancels the resubscription', async (t) => {
  const client = fakeClient();
  const stop = watchAll(client, () => undefined, { firstDelayMs: 30 });
  client.subscriptions[0]!.emit('error', new Error('down'));
  await stop();
  await settle(80);
  t.equal(client.subscriptions.length, 1, 'no new subscription after stop');
  client.subscriptions[0]!.emit('error', new Error('late'));
  await settle(60);
  t.equal(client.subscriptions.length, 1, 'a late error of a stopped watch does nothing');
});
