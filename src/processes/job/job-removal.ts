import { deleteJobWithService } from '../../../commands/job/handlers.js';
import { causedBy } from '../../../commands/shared/command-context.js';
import { parseServiceEvent } from '../../../commands/service/events.js';
import { listJobsOfDeletedServices } from '../../../projections/job-queries.js';
import { aggregateIdOf } from '../../../projections/stream-id.js';
import type { RecordedEvent } from '../../eventstore/port.js';
import type { Logger } from '../../logger.js';
import type { JobDueDeps } from './job-due.js';

/** Records JobDeleted (`service-deleted`) for each job of the service `deletion` deleted, caused by that event. */
export async function deleteJobsOfDeletedService(deps: JobDueDeps, deletion: RecordedEvent) {
  const serviceId = aggregateIdOf(deletion.streamId);
  const ctx = causedBy(deps.cmd, deletion);
  for (const job of await listJobsOfDeletedServices(deps.db)) {
    if (job.service_id === serviceId) await deleteJobWithService(ctx, job.id);
  }
}

/** The service's ServiceDeleted as recorded, or null. */
async function deletionOf(deps: JobDueDeps, serviceId: string): Promise<RecordedEvent | null> {
  for (const recorded of await deps.cmd.store.readStream(`service-${serviceId}`, { direction: 'backwards', maxCount: 20 })) {
    if (parseServiceEvent(recorded)?.type === 'ServiceDeleted') return recorded;
  }
  return null;
}

/** Finishes what a crash or a failed append left: jobs of deleted services whose JobDeleted is not recorded yet. */
export async function finishJobsOfDeletedServices(deps: JobDueDeps, log: Logger) {
  for (const job of await listJobsOfDeletedServices(deps.db)) {
    try {
      const deletion = await deletionOf(deps, job.service_id);
      await deleteJobWithService(deletion ? causedBy(deps.cmd, deletion) : deps.cmd, job.id);
    } catch (error) {
      log.warn('could not record the deletion of a deleted service’s job; retried at the next reconcile', { job: job.id, error: String(error) });
    }
  }
}
