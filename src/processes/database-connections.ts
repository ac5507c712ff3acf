import { parseServiceEvent } from '../../commands/service/events.js';
import { aggregateIdOf } from '../../projections/stream-id.js';
import type { BrowserPool } from '../engines/browser-pool.js';
import type { RecordedEvent } from '../eventstore/port.js';
import type { Reactor } from './reactor.js';

/**
 * Closes the browser connections of a database service when it is deleted or released anew (a redeploy
 * restarts its engine): the next request opens fresh ones. Idle connections close on their own.
 */
export function databaseConnections(pool: BrowserPool): Reactor {
  return {
    name: 'database-connections',
    async handle(batch: readonly RecordedEvent[]) {
      for (const recorded of batch) {
        const event = parseServiceEvent(recorded);
        if (event?.type === 'ServiceDeleted' || event?.type === 'ServiceReleased') pool.drop(aggregateIdOf(recorded.streamId));
      }
    },
  };
}
