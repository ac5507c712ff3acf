import type { components } from '../../shared/api-types.js';
import { TRIGGER_WORDS } from '../../shared/trigger-words.js';
import { answer, apiClient, CliError, type Api } from './client.js';
import { out, table, when } from './output.js';
import { print, type Output } from './resources.js';
import { findService } from './resolve.js';

type Deployment = components['schemas']['Deployment'];

const LAST_LINES = 20;

const took = (d: Deployment) => {
  if (!d.startedAt || !d.finishedAt) return '';
  return `${Math.round((Date.parse(d.finishedAt) - Date.parse(d.startedAt)) / 1000)} s`;
};

const SUBJECT_WIDTH = 40;

/** The commit's short id and the start of its message's first line. */
function commitOf(d: Deployment): string {
  if (!d.commitSha) return '';
  const subject = d.commitMessage?.split('\n')[0]?.trim() ?? '';
  return subject ? `${d.commitSha.slice(0, 7)} ${subject.length > SUBJECT_WIDTH ? `${subject.slice(0, SUBJECT_WIDTH - 1)}…` : subject}` : d.commitSha.slice(0, 7);
}

export async function listDeployments(serviceRef: string, o: Output & { project?: string }) {
  const { api } = apiClient();
  const service = await findService(api, serviceRef, o.project);
  const data = await answer(api.GET('/api/services/{serviceId}/deployments', { params: { path: { serviceId: service.id } } }));
  print(o.json, data, () =>
    data.deployments.length === 0
      ? `${service.slug} has not been deployed yet: slipway deploy ${service.id}`
      : table(
          ['ID', 'KIND', 'TRIGGER', 'STATUS', 'COMMIT', 'CREATED', 'TOOK', 'REASON'],
          data.deployments.map((d) => [d.id, d.kind, TRIGGER_WORDS[d.trigger], d.status, commitOf(d), when(d.createdAt), took(d), d.reason ?? '']),
        ),
  );
}

/**
 * A deployment by its id. The API lists deployments per service: with `--service` only that one is asked,
 * else each service the key can see until it is found.
 */
async function findDeployment(api: Api, id: string, serviceRef?: string): Promise<{ deployment: Deployment; service: string }> {
  const services = serviceRef
    ? [await findService(api, serviceRef)]
    : (await answer(api.GET('/api/projects'))).projects.flatMap((p) => p.services.map((s) => ({ ...s, slug: `${p.slug}/${s.slug}` })));
  for (const s of services) {
    const { deployments } = await answer(api.GET('/api/services/{serviceId}/deployments', { params: { path: { serviceId: s.id } } }));
    const deployment = deployments.find((d) => d.id === id || (id.length >= 8 && d.id.startsWith(id)));
    if (deployment) return { deployment, service: s.slug };
  }
  throw new CliError(`no deployment ${id} that this key can see`);
}

export async function showDeployment(id: string, o: Output & { service?: string; lines?: string }) {
  const { api } = apiClient();
  const { deployment: d, service } = await findDeployment(api, id, o.service);
  const { logs } = await answer(api.GET('/api/deployments/{deploymentId}/logs', { params: { path: { deploymentId: d.id } } }));
  const count = Number(o.lines ?? LAST_LINES);
  if (o.json) {
    out(JSON.stringify({ deployment: d, logs }));
    return;
  }
  const rows: [string, string][] = [
    ['deployment', d.id],
    ['service', service],
    ['kind', d.kind + (d.trigger === 'auto' ? ' (started by Slipway)' : '')],
    ['status', d.status],
    ...(d.reason ? [['reason', d.reason] as [string, string]] : []),
    ...(d.commitSha ? [['commit', d.commitMessage ? `${d.commitSha} ${d.commitMessage}` : d.commitSha] as [string, string]] : []),
    ['created', when(d.createdAt)],
    ['started', when(d.startedAt) || '-'],
    ['finished', when(d.finishedAt) || '-'],
  ];
  for (const [k, v] of rows) out(`${(k + ':').padEnd(12)}${v}`);
  const tail = logs.slice(-count);
  out('');
  out(tail.length === 0 ? 'no log lines' : `last ${tail.length} of ${logs.length} log lines:`);
  for (const line of tail) out(`  ${line.line}`);
}

export async function abortDeployment(id: string, o: Output & { service?: string }) {
  const { api } = apiClient();
  const { deployment } = await findDeployment(api, id, o.service);
  const data = await answer(api.POST('/api/deployments/{deploymentId}/abort', { params: { path: { deploymentId: deployment.id } } }));
  print(o.json, data, () => `abort of deployment ${deployment.id} requested; see slipway deployments show ${deployment.id}`);
}

export async function explainDeployment(id: string, o: Output & { service?: string; provider?: string; model?: string; refresh?: boolean }) {
  const { api } = apiClient();
  const { deployment } = await findDeployment(api, id, o.service);
  const data = await answer(
    api.POST('/api/deployments/{deploymentId}/explain-failure', {
      params: { path: { deploymentId: deployment.id }, ...(o.refresh ? { query: { refresh: 'true' } } : {}) },
      body: { providerId: o.provider ?? 'builtin', ...(o.model ? { model: o.model } : {}) },
    }),
  );
  print(o.json, data, () => {
    const e = data.explanation;
    return [
      `summary:       ${e.summary}`,
      `likely cause:  ${e.likelyCause}`,
      `suggested fix: ${e.suggestedFix}`,
      ...(e.commands.length > 0 ? ['commands:', ...e.commands.map((c) => `  ${c}`)] : []),
      `(${data.providerId}${data.model ? ` ${data.model}` : ''}${data.stored ? ', kept from an earlier request' : ''})`,
    ].join('\n');
  });
}
