import { parseServiceEvent } from '../../commands/service/events.js';
import { aggregateIdOf } from '../../projections/stream-id.js';
import type { BrowserPool } from '../engines/browser-pool.js';
import type { RecordedEvent } from '../eventstore/port.js';
import type { Reactor } from './reactor.js';

/**
 * Closes the browser connections of a database service when it is deleted or released anew (a redeploy
 * restarts its engine): the next request opens fresh ones. Any other change of a service makes its
 * resolved target stale; a changed variable may be referred to by any service, so all are resolved again.
 * Idle connections close on their own.
 */
export function databaseConnections(pool: BrowserPool<unknown>): Reactor {
  return {
    name: 'database-connections',
    async handle(batch: readonly RecordedEvent[]) {
      for (const recorded of batch) {
        const event = parseServiceEvent(recorded);
        if (!event) continue;
        const serviceId = aggregateIdOf(recorded.streamId);
        if (event.type === 'ServiceDeleted' || event.type === 'ServiceReleased') pool.drop(serviceId);
        else if (event.type === 'EnvVarSet' || event.type === 'EnvVarDeleted') pool.forget();
        else pool.forget(serviceId);
      }
    },
  };
}
