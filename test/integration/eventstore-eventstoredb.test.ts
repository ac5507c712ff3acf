import t from 'tap';
import { createEventStoreDbEventStore } from '../../src/eventstore/eventstoredb-event-store.js';
import type { EventStore } from '../../src/eventstore/port.js';
import { eventStoreContract } from '../helpers/event-store-contract.js';

const url = process.env.EVENTSTORE_URL;
const reason = 'EVENTSTORE_URL is not set: no EventStoreDB server can be installed on this machine';

t.test('EventStoreDB adapter contract', { skip: url ? false : reason }, async (t) => {
  const opened: EventStore[] = [];
  t.teardown(async () => {
    for (const store of opened) await store.close();
  });
  eventStoreContract(t, async () => {
    const store = await createEventStoreDbEventStore(url!);
    opened.push(store);
    return store;
  });
});
