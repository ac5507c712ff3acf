import t from 'tap';
import { createEventStoreDbEventStore } from '../../src/eventstore/eventstoredb-event-store.js';
import { eventStoreContract } from '../helpers/event-store-contract.js';

const url = process.env.EVENTSTORE_URL;
if (!url) {
  t.comment('EVENTSTORE_URL is not set: no EventStoreDB server can be obtained on this machine, contract suite skipped');
  t.pass('skipped: no EventStoreDB server');
} else {
  eventStoreContract(t, () => createEventStoreDbEventStore(url));
}
