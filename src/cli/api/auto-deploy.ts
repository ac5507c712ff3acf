import type { components } from '../../shared/api-types.js';
import { answer, apiClient } from './client.js';
import { out, table, when } from './output.js';
import { print, type Output } from './resources.js';
import { findService } from './resolve.js';
import { UsageError } from './usage-error.js';

type Settings = components['schemas']['AutoDeploySettings'] & { secret?: string };
type Provider = Settings['provider'];
const PROVIDERS: readonly Provider[] = ['github', 'gitlab', 'gitea', 'bitbucket', 'generic'];

export interface AutoDeployOptions extends Output {
  project?: string;
  provider?: string;
  branch?: string;
  tags?: string;
  watch?: string[];
  ignore?: string[];
  skipKeyword?: string[];
  disable?: boolean;
  rotateSecret?: boolean;
}

function describe(s: Settings): string {
  const lines = [
    `${s.enabled ? 'on' : 'off'}: ${s.provider} pushes to ${s.branch}${s.followsServiceBranch ? ' (the service’s branch)' : ''}${s.tagPattern ? `, and tags matching ${s.tagPattern}` : ''}`,
    `webhook URL: ${s.webhookUrl}`,
  ];
  if (s.webhookWarning) lines.push(`warning: ${s.webhookWarning}`);
  if (s.watchPaths.length) lines.push(`only when touching: ${s.watchPaths.join(', ')}`);
  if (s.ignorePaths.length) lines.push(`not when touching only: ${s.ignorePaths.join(', ')}`);
  lines.push(`skip keywords: ${s.skipKeywords.join(' ') || '(none)'}`);
  if (s.secret) lines.push(`secret (shown once; give it to the Git host): ${s.secret}`);
  return lines.join('\n');
}

/** Shows the settings; with --provider (or --disable / --rotate-secret) saves them first. */
export async function autoDeploy(serviceRef: string, o: AutoDeployOptions) {
  const { api } = apiClient();
  const service = await findService(api, serviceRef, o.project);
  const path = { params: { path: { serviceId: service.id } } };
  const current = (await answer(api.GET('/api/services/{serviceId}/auto-deploy', path))).autoDeploy;
  const changing = o.provider !== undefined || o.disable || o.branch !== undefined || o.tags !== undefined || o.watch || o.ignore || o.skipKeyword;
  let shown: Settings | null = current;
  if (changing) {
    const provider = o.provider ?? current?.provider;
    if (!provider) throw new UsageError('auto-deploy is not set up yet: give --provider github|gitlab|gitea|bitbucket|generic');
    if (!PROVIDERS.includes(provider as Provider)) throw new UsageError(`--provider must be one of ${PROVIDERS.join(', ')}`);
    const body = {
      enabled: !o.disable,
      provider: provider as Provider,
      ...(o.branch !== undefined ? { branch: o.branch } : current && !current.followsServiceBranch ? { branch: current.branch } : {}),
      tagPattern: o.tags ?? current?.tagPattern ?? null,
      watchPaths: o.watch ?? current?.watchPaths ?? [],
      ignorePaths: o.ignore ?? current?.ignorePaths ?? [],
      ...(o.skipKeyword ? { skipKeywords: o.skipKeyword } : current ? { skipKeywords: current.skipKeywords } : {}),
    };
    shown = (await answer(api.PUT('/api/services/{serviceId}/auto-deploy', { ...path, body }))).autoDeploy;
  }
  if (o.rotateSecret) shown = (await answer(api.POST('/api/services/{serviceId}/auto-deploy/rotate-secret', path))).autoDeploy;
  print(o.json, { autoDeploy: shown }, () => (shown ? describe(shown) : `auto-deploy is off for ${service.slug}: slipway auto-deploy ${service.slug} --provider github`));
}

export async function webhookDeliveries(serviceRef: string, o: Output & { project?: string }) {
  const { api } = apiClient();
  const service = await findService(api, serviceRef, o.project);
  const { deliveries } = await answer(api.GET('/api/services/{serviceId}/auto-deploy/deliveries', { params: { path: { serviceId: service.id } } }));
  if (o.json) {
    out(JSON.stringify({ deliveries }));
    return;
  }
  out(
    deliveries.length === 0
      ? `no deliveries to ${service.slug}’s hook yet`
      : table(
          ['WHEN', 'PROVIDER', 'EVENT', 'VERDICT', 'COMMIT', 'DEPLOYMENT', 'DELIVERY'],
          deliveries.map((d) => [when(d.at), d.provider, d.event ?? '', d.verdict, d.commitSha?.slice(0, 7) ?? '', d.deploymentId ?? '', d.deliveryId ?? '']),
        ),
  );
}
