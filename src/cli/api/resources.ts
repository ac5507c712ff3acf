import { answer, apiClient, CliError } from './client.js';
import { masked, out, table, when } from './output.js';
import { confirm } from './confirm.js';
import { findProject, findService } from './resolve.js';

export interface Output {
  json?: boolean;
}

export const print = (json: boolean | undefined, data: unknown, human: () => string) => out(json ? JSON.stringify(data) : human());

export async function listProjects(o: Output) {
  const { api } = apiClient();
  const data = await answer(api.GET('/api/projects'));
  print(o.json, data, () =>
    data.projects.length === 0
      ? 'no projects yet: slipway projects create <name>'
      : table(
          ['SLUG', 'NAME', 'SERVICES', 'STATUS', 'UPDATED'],
          data.projects.map((p) => [p.slug, p.name, String(p.serviceCount), p.status, when(p.lastUpdatedAt)]),
        ),
  );
}

export async function createProject(name: string, o: Output & { description?: string }) {
  const { api } = apiClient();
  const data = await answer(api.POST('/api/projects', { body: { name, description: o.description ?? '' } }));
  print(o.json, data, () => `created project ${data.project.slug} (${data.project.id})`);
}

export async function deleteProject(ref: string, o: Output & { yes?: boolean }) {
  const { api } = apiClient();
  const project = await findProject(api, ref);
  const databases = project.services.filter((s) => s.repoUrl === 'database').length;
  const what = project.services.length === 0 ? '' : ` with its ${project.services.length} service(s)${databases > 0 ? ` (${databases} database(s)) and their volumes` : ''}`;
  await confirm(`Delete project ${project.slug}${what}?`, o);
  const data = await answer(api.DELETE('/api/projects/{projectId}', { params: { path: { projectId: project.id } } }));
  print(o.json, data, () => `deleted project ${project.slug} and its ${project.serviceCount} service(s)${data.proxy.ok ? '' : `; the proxy said: ${data.proxy.detail}`}`);
}

export async function listVariables(serviceRef: string, o: Output) {
  const { api } = apiClient();
  const service = await findService(api, serviceRef);
  const data = await answer(api.GET('/api/services/{serviceId}/overview', { params: { path: { serviceId: service.id } } }));
  print(o.json, { env: data.env }, () =>
    data.env.length === 0 ? `no variables on ${service.slug}` : table(['KEY', 'VALUE', 'UPDATED'], data.env.map((v) => [v.key, masked(v.value), when(v.updatedAt)])),
  );
}

/** `KEY=VALUE` pairs, or one `KEY VALUE`. */
export function variablesFrom(args: readonly string[]): { key: string; value: string }[] {
  if (args.length === 2 && !args[0]!.includes('=')) return [{ key: args[0]!, value: args[1]! }];
  if (args.length === 0) throw new CliError('give KEY=VALUE (or KEY VALUE)');
  return args.map((arg) => {
    const at = arg.indexOf('=');
    if (at <= 0) throw new CliError(`${JSON.stringify(arg)} is not KEY=VALUE`);
    return { key: arg.slice(0, at), value: arg.slice(at + 1) };
  });
}

export async function setVariables(serviceRef: string, args: readonly string[], o: Output) {
  const variables = variablesFrom(args);
  const { api } = apiClient();
  const service = await findService(api, serviceRef);
  for (const v of variables) {
    const data = await answer(api.POST('/api/services/{serviceId}/env', { params: { path: { serviceId: service.id } }, body: v }));
    print(o.json, data, () => `set ${v.key} on ${service.slug}`);
  }
  if (!o.json) out(`they apply at the next deployment: slipway deploy ${service.id}`);
}

export async function unsetVariables(serviceRef: string, keys: readonly string[], o: Output) {
  if (keys.length === 0) throw new CliError('give the keys to remove');
  const { api } = apiClient();
  const service = await findService(api, serviceRef);
  const { env } = await answer(api.GET('/api/services/{serviceId}/overview', { params: { path: { serviceId: service.id } } }));
  for (const key of keys) {
    const variable = env.find((v) => v.key === key);
    if (!variable) throw new CliError(`${service.slug} has no variable ${key}`);
    const data = await answer(api.DELETE('/api/services/{serviceId}/env/{envId}', { params: { path: { serviceId: service.id, envId: variable.id } } }));
    print(o.json, data, () => `removed ${key} from ${service.slug}`);
  }
}

export async function listDomains(serviceRef: string, o: Output) {
  const { api } = apiClient();
  const service = await findService(api, serviceRef);
  const { domains } = await answer(api.GET('/api/services/{serviceId}/overview', { params: { path: { serviceId: service.id } } }));
  print(o.json, { domains }, () =>
    domains.length === 0
      ? `no domains on ${service.slug}: slipway domains ${service.id} add <hostname>`
      : table(
          ['HOSTNAME', 'CERTIFICATE', 'DNS', 'ID'],
          domains.map((d) => [d.hostname, d.certificate.status + (d.certificate.reason ? ` (${d.certificate.reason})` : ''), d.dns ? `${d.dns.recordType ?? ''} ${d.dns.targetIp ?? ''} via ${d.dns.providerId}`.trim() : '', d.id]),
        ),
  );
}

export async function addDomain(serviceRef: string, hostname: string, o: Output) {
  const { api } = apiClient();
  const service = await findService(api, serviceRef);
  const data = await answer(api.POST('/api/services/{serviceId}/domains', { params: { path: { serviceId: service.id } }, body: { hostname } }));
  print(o.json, data, () => `${hostname} now routes to ${service.slug}${data.proxy.ok ? '' : `; the proxy said: ${data.proxy.detail}`}`);
}

export async function removeDomain(serviceRef: string, hostname: string, o: Output) {
  const { api } = apiClient();
  const service = await findService(api, serviceRef);
  const { domains } = await answer(api.GET('/api/services/{serviceId}/overview', { params: { path: { serviceId: service.id } } }));
  const domain = domains.find((d) => d.hostname === hostname.toLowerCase() || d.id === hostname);
  if (!domain) throw new CliError(`${service.slug} has no domain ${hostname}`);
  const data = await answer(api.DELETE('/api/services/{serviceId}/domains/{domainId}', { params: { path: { serviceId: service.id, domainId: domain.id } } }));
  print(o.json, data, () => `${domain.hostname} no longer routes to ${service.slug}${data.proxy.ok ? '' : `; the proxy said: ${data.proxy.detail}`}`);
}

export interface AuditLogOptions extends Output {
  project?: string;
  stream?: string;
  correlation?: string;
  after?: string;
  limit: string;
  all?: boolean;
}

const EVENT_COLUMNS = ['POSITION', 'RECORDED', 'ACTOR', 'TYPE', 'STREAM', 'CORRELATION'];

/** The audit log, oldest first from `after`, page by page: a table, or JSON Lines with `--json`. */
export async function auditLog(o: AuditLogOptions) {
  const limit = o.all ? Infinity : Number(o.limit);
  if (!(limit >= 1)) throw new CliError('--limit must be a positive number');
  const { api } = apiClient();
  const projectId = o.project ? (await findProject(api, o.project)).id : null;
  let after = o.after;
  let shown = 0;
  while (shown < limit) {
    const query = { ...(after ? { after } : {}), limit: Math.min(1000, limit - shown), ...(o.stream ? { stream: o.stream } : {}), ...(o.correlation ? { correlationId: o.correlation } : {}) };
    const page = projectId
      ? await answer(api.GET('/api/projects/{projectId}/events', { params: { path: { projectId }, query } }))
      : await answer(api.GET('/api/events', { params: { query } }));
    if (o.json) for (const e of page.events) out(JSON.stringify(e));
    else if (page.events.length > 0 || shown === 0) {
      const rows = page.events.map((e) => [e.position, when(e.recordedAt), e.actor, e.type, e.streamId, e.correlationId]);
      const text = table(EVENT_COLUMNS, rows);
      out(shown === 0 ? text : text.split('\n').slice(1).join('\n'));
    }
    shown += page.events.length;
    if (!page.next) break;
    after = page.next;
  }
}

export async function listReleases(serviceRef: string, o: Output & { project?: string }) {
  const { api } = apiClient();
  const service = await findService(api, serviceRef, o.project);
  const data = await answer(api.GET('/api/services/{serviceId}/releases', { params: { path: { serviceId: service.id } } }));
  print(o.json, data, () =>
    data.releases.length === 0
      ? `${service.slug} has no release yet: slipway deploy ${service.id}`
      : table(
          ['VERSION', 'CURRENT', 'COMMIT', 'MESSAGE', 'IMAGE', 'AVAILABLE', 'CREATED'],
          data.releases.map((r) => [
            `v${r.version}`,
            r.current ? '*' : '',
            r.commitSha?.slice(0, 7) ?? '',
            (r.commitMessage ?? '').slice(0, 40),
            r.imageId.slice(7, 19),
            r.available ? 'yes' : 'pruned',
            when(r.createdAt),
          ]),
        ),
  );
}
