import { release, reserve } from '../reservation/handlers.js';
import { retireProject, type RetirementDeps } from '../retirement.js';
import { deleteService } from '../service/handlers.js';
import type { CommandContext } from '../shared/command-context.js';
import { DomainError, notFound } from '../shared/domain-error.js';
import { execute, latest, loadAggregate } from '../shared/execute.js';
import { newId } from '../shared/ids.js';
import { slugify } from '../shared/slug.js';
import { project } from './aggregate.js';

async function reserveSlug(ctx: CommandContext, name: string, projectId: string): Promise<string> {
  const base = slugify(name) || 'project';
  for (let n = 1; n <= 100; n++) {
    const slug = n === 1 ? base : `${base}-${n}`;
    try {
      await reserve(ctx, 'project-slug', slug, projectId, `project slug ${slug}`);
      return slug;
    } catch (error) {
      if (!(error instanceof DomainError && error.code === 'conflict')) throw error;
    }
  }
  throw new DomainError('conflict', `no free slug left for ${base}`);
}

export async function createProject(ctx: CommandContext, input: { name: string; description: string }) {
  const id = newId(ctx, 'project');
  const slug = await reserveSlug(ctx, input.name, id);
  try {
    const { position } = await execute(ctx, project, id, (s) => project.decide.create(s, { ...input, slug }));
    return { id, position };
  } catch (error) {
    await release(ctx, 'project-slug', slug, id);
    throw error;
  }
}

export async function updateProject(ctx: CommandContext, id: string, input: { name?: string; description?: string }) {
  return execute(ctx, project, id, (s) => project.decide.update(s, input));
}

/**
 * Deletes the project's services first (each retired at once), so a failure half-way leaves a smaller
 * project, never an orphan; then deletes the project and retires it (its slug is free when this returns).
 */
export async function deleteProject(ctx: CommandContext, retirement: RetirementDeps, id: string) {
  const { state } = await loadAggregate(ctx, project, id);
  if (state.status !== 'live') throw notFound('project');
  let position: string | null = null;
  for (const serviceId of state.serviceIds) {
    const removed = await deleteService(ctx, retirement, serviceId);
    // An id attached by a creation that never finished: nothing to delete, only to detach.
    const detached = removed.existed ? { position: null } : await execute(ctx, project, id, (s) => project.decide.detach(s, serviceId));
    position = latest(position, removed.position, detached.position);
  }
  const done = await execute(ctx, project, id, project.decide.delete);
  const retired = await retireProject(ctx, retirement, id);
  return { position: latest(position, done.position, retired.position) };
}
