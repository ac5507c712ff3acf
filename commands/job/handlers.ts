import { release, reserve } from '../reservation/handlers.js';
import type { CommandContext } from '../shared/command-context.js';
import { execute, latest, loadAggregate } from '../shared/execute.js';
import { newId } from '../shared/ids.js';
import { job } from './aggregate.js';
import type { JobSettings } from './events.js';

/** A job's name is unique in its service, whatever its case: a `job-name` reservation held by the job. */
const nameValue = (serviceId: string, name: string) => `${serviceId}/${name.toLowerCase()}`;
/** Owned under the service (`<serviceId>/…`), so the service's retirement gives its jobs' names back too. */
const nameOwner = (serviceId: string, jobId: string) => `${serviceId}/job-${jobId}`;
const describeName = (name: string) => `a job named "${name}" in this service`;

export interface NewJob extends JobSettings {
  serviceId: string;
  projectId: string;
}

/** Reserves the name, then records the job; a creation refused after the reservation gives the name back. */
export async function createJob(ctx: CommandContext, input: NewJob) {
  const id = newId(ctx, 'job');
  const owner = nameOwner(input.serviceId, id);
  const reserved = await reserve(ctx, 'job-name', nameValue(input.serviceId, input.name), owner, describeName(input.name));
  try {
    const created = await execute(ctx, job, id, (s) => job.decide.create(s, input));
    return { id, position: latest(reserved.position, created.position) };
  } catch (error) {
    await release(ctx, 'job-name', nameValue(input.serviceId, input.name), owner).catch(() => undefined);
    throw error;
  }
}

export const loadJob = async (ctx: CommandContext, id: string) => (await loadAggregate(ctx, job, id)).state;

/** A new name is reserved before the change and the old one released after it. */
export async function updateJob(ctx: CommandContext, id: string, changes: Partial<JobSettings>) {
  const before = await loadJob(ctx, id);
  const settings = before.settings;
  const serviceId = before.serviceId;
  if (before.status !== 'live' || !settings || !serviceId) return execute(ctx, job, id, (s) => job.decide.update(s, changes));
  const renamed = changes.name !== undefined && changes.name.toLowerCase() !== settings.name.toLowerCase() ? changes.name : null;
  const owner = nameOwner(serviceId, id);
  const reserved = renamed ? await reserve(ctx, 'job-name', nameValue(serviceId, renamed), owner, describeName(renamed)) : null;
  try {
    const updated = await execute(ctx, job, id, (s) => job.decide.update(s, changes));
    const released = renamed ? await release(ctx, 'job-name', nameValue(serviceId, settings.name), owner) : null;
    return { events: updated.events, position: latest(reserved?.position ?? null, updated.position, released?.position ?? null) };
  } catch (error) {
    if (renamed) await release(ctx, 'job-name', nameValue(serviceId, renamed), owner).catch(() => undefined);
    throw error;
  }
}

export async function deleteJob(ctx: CommandContext, id: string) {
  const before = await loadJob(ctx, id);
  const deleted = await execute(ctx, job, id, job.decide.delete);
  const released = before.settings && before.serviceId ? await release(ctx, 'job-name', nameValue(before.serviceId, before.settings.name), nameOwner(before.serviceId, id)) : null;
  return { position: latest(deleted.position, released?.position ?? null) };
}

/** Deletes a job of a deleted service (its name goes back with the service's retirement); a no-op once deleted. */
export const deleteJobWithService = (ctx: CommandContext, id: string) => execute(ctx, job, id, job.decide.deleteWithService);
