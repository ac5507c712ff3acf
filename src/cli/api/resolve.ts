import { answer, CliError, type Api } from './client.js';

export type ProjectAnswer = Awaited<ReturnType<typeof findProject>>;
export type ServiceSummary = ProjectAnswer['services'][number];

/** A project by its slug or id. */
export async function findProject(api: Api, ref: string) {
  return (await answer(api.GET('/api/projects/{projectSlug}', { params: { path: { projectSlug: ref } } }))).project;
}

/**
 * A service by its id, by `<project>/<service>` (slugs or names), by its slug or name within `project`
 * (`--project`), or by its slug or name alone when only one service the key can see has it.
 */
export async function findService(api: Api, ref: string, project?: string): Promise<ServiceSummary> {
  const { projects } = await answer(api.GET('/api/projects'));
  const [projectRef, serviceRef] = ref.includes('/') ? (ref.split('/', 2) as [string, string]) : [project ?? null, ref];
  const candidates = projects
    .filter((p) => projectRef === null || p.slug === projectRef || p.name === projectRef || p.id === projectRef)
    .flatMap((p) => p.services.map((s) => ({ project: p, service: s })));
  const byId = candidates.filter((c) => c.service.id === serviceRef);
  const matches = byId.length > 0 ? byId : candidates.filter((c) => c.service.slug === serviceRef || c.service.name === serviceRef);
  if (matches.length === 1) return matches[0]!.service;
  if (matches.length === 0) throw new CliError(`no service ${JSON.stringify(ref)} that this key can see`);
  const names = matches.map((m) => `${m.project.slug}/${m.service.slug}`).join(', ');
  throw new CliError(`${JSON.stringify(ref)} names several services (${names}): say which, as <project>/<service>`);
}
