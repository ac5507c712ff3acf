import { LOG_CATEGORY } from '../../../../commands/deployment/events.js';
import type { EventMetadata, EventStore } from '../../../eventstore/port.js';
import { ChunkedLog } from '../../chunked-log.js';

/** A deployment's build and start-up output, in chunks on `deploymentlog-<id>`. */
export class DeploymentLog extends ChunkedLog {
  constructor(
    store: EventStore,
    deploymentId: string,
    redact: (line: string) => string,
    metadata: EventMetadata,
    next = 1,
    onLost: (count: number, error: unknown) => void = () => undefined,
  ) {
    super(store, { streamId: `${LOG_CATEGORY}-${deploymentId}`, eventType: 'DeploymentLogAppended' }, redact, metadata, next, onLost);
  }
}
