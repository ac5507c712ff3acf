import { ENGINES } from '../../shared/database-engine.js';
import { answer, apiClient } from './client.js';
import { confirm } from './confirm.js';
import { table, when } from './output.js';
import { print, type Output } from './resources.js';
import { findProject, findService } from './resolve.js';
import { serviceBody, type ServiceSource } from './service-body.js';
import { UsageError } from './usage-error.js';

export { ENGINES };

type CreateServiceOptions = ServiceSource & Output;

const kindOf = (s: { repoUrl: string; repoFullName: string | null; runtimeMode: string }) =>
  s.repoUrl === 'database' ? (s.repoFullName ?? 'database') : s.repoUrl === 'docker-image' ? `image/${s.runtimeMode}` : s.repoUrl === 'push' ? `pushed/${s.runtimeMode}` : `git/${s.runtimeMode}`;

export async function listServices(projectRef: string, o: Output) {
  const { api } = apiClient();
  const project = await findProject(api, projectRef);
  print(o.json, { services: project.services }, () =>
    project.services.length === 0
      ? `no services in ${project.slug} yet: slipway services create NAME --project ${project.slug} --image IMAGE | --repo OWNER/REPO | --git-url URL | --push | --engine ENGINE`
      : table(
          ['NAME', 'KIND', 'STATUS', 'URL', 'LAST DEPLOYED', 'ID'],
          project.services.map((s) => [s.slug, kindOf(s), s.status, s.primaryUrl, when(s.lastDeployedAt) || 'never', s.id]),
        ),
  );
}

export async function createService(projectRef: string, name: string, o: CreateServiceOptions) {
  const body = serviceBody(name, o);
  const { api } = apiClient();
  const project = await findProject(api, projectRef);
  const data = await answer(api.POST('/api/projects/{projectId}/services', { params: { path: { projectId: project.id } }, body }));
  const ref = `${project.slug}/${data.service.slug}`;
  print(o.json, data, () =>
    o.engine
      ? `created database ${ref} (${o.engine}, ${data.service.id}); start it with: slipway deploy ${ref}; then slipway db connect ${ref}`
      : o.push
        ? `created service ${ref} (${data.service.id}); in your repository: slipway git-remote ${ref} --add, then git push slipway ${data.service.branch}`
        : `created service ${ref} (${data.service.id}); deploy it with: slipway deploy ${ref}`,
  );
}

export async function deleteService(ref: string, o: Output & { yes?: boolean; project?: string }) {
  const { api } = apiClient();
  const service = await findService(api, ref, o.project);
  const database = service.repoUrl === 'database';
  await confirm(`Delete service ${service.slug} with its container${database ? ', its data volume and its backups' : ''}, variables and domains?`, o);
  const data = await answer(api.DELETE('/api/services/{serviceId}', { params: { path: { serviceId: service.id } } }));
  print(o.json, data, () => `deleted service ${service.slug}`);
}

/** A name the example puts before `--name`: `services create db --engine postgres --name main-db`. */
const KIND_WORDS = new Set(['db', 'database', 'app', 'service', 'image', 'repo', 'git']);

/**
 * `services` takes both forms: `services PROJECT [list|create NAME]` and `services list|create|delete … --project P`.
 */
export async function servicesCommand(args: string[], o: CreateServiceOptions & { project?: string; name?: string; yes?: boolean }) {
  const [first, second, third] = args;
  if (first === 'create') {
    if (!o.project) throw new UsageError('services create needs --project PROJECT (or: slipway services PROJECT create NAME)');
    if (o.name && second && !KIND_WORDS.has(second)) throw new UsageError(`give the name once: ${second} or --name ${o.name}`);
    const name = o.name ?? second;
    if (!name) throw new UsageError('services create needs the new service’s name (NAME or --name NAME)');
    return createService(o.project, name, o);
  }
  if (first === 'delete') {
    if (!second) throw new UsageError('services delete needs the service');
    return deleteService(second, o);
  }
  if (first === 'list' || first === undefined) {
    const project = o.project ?? second;
    if (!project) throw new UsageError('say which project: slipway services PROJECT or --project PROJECT');
    return listServices(project, o);
  }
  // The positional form: services PROJECT [list|create NAME|delete SERVICE].
  if (second === undefined || second === 'list') return listServices(first, o);
  if (second === 'create') {
    const name = o.name ?? third;
    if (!name) throw new UsageError('services <project> create needs the new service’s name');
    return createService(first, name, o);
  }
  if (second === 'delete') {
    if (!third) throw new UsageError('services <project> delete needs the service');
    return deleteService(third, { ...o, project: first });
  }
  throw new UsageError(`unknown action ${second}: use list, create or delete`);
}

export const servicesHelp = `Forms:
  slipway services PROJECT [list]
  slipway services create NAME --project P (--image IMAGE | --repo OWNER/REPO | --git-url URL | --engine ENGINE) [--port N] [--mode web|worker|static] [--branch B]
  slipway services create db --project P --engine postgres --name main-db
  slipway services PROJECT create NAME …   (the same, project first)
  slipway services delete SERVICE [--project P] [--yes]
Engines: ${ENGINES.join(', ')} (a database service listens on its engine's port unless --port is given).`;

