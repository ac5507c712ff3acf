import type { components } from '../../shared/api-types.js';
import { answer, apiClient } from './client.js';
import { out, table, when } from './output.js';
import { type Output } from './resources.js';
import { findService } from './resolve.js';

type Deployment = components['schemas']['Deployment'];
type Release = components['schemas']['Release'];

/** One line of a service's release timeline: a release that went live, or a deployment that ran a kept one. */
interface Entry {
  version: string;
  kind: string;
  status: string;
  commit: string;
  at: string;
  current: boolean;
  description: string;
}

/**
 * A service's release timeline, newest first: each release (made by a deployment of kind `deploy`), and each
 * deployment that ran a kept release again (rollback, start, restart, config), like `heroku releases`.
 */
export function releaseTimelineOf(releases: readonly Release[], deployments: readonly Deployment[]): Entry[] {
  const byDeployment = new Map(releases.map((r) => [r.deploymentId, r]));
  const byId = new Map(releases.map((r) => [r.id, r]));
  return deployments
    .filter((d) => byDeployment.has(d.id) || d.kind !== 'deploy')
    .map((d): Entry => {
      const made = byDeployment.get(d.id);
      const ran = d.rollbackOf ? byId.get(d.rollbackOf) : undefined;
      const release = made ?? ran;
      const description =
        d.kind === 'deploy'
          ? (release?.commitMessage ?? (d.buildMethod === 'image' ? 'image' : 'deploy'))
          : `${d.kind}${d.trigger === 'auto' ? ' (automatic)' : ''}${ran ? ` of v${ran.version}` : ''}`;
      return {
        version: release ? `v${release.version}` : '',
        kind: d.kind,
        status: d.status + (d.reason && d.status !== 'succeeded' ? `: ${d.reason}` : ''),
        commit: (d.commitSha ?? release?.commitSha)?.slice(0, 7) ?? '',
        at: when(d.finishedAt ?? d.createdAt),
        current: Boolean(made?.current),
        description,
      };
    });
}

export async function releaseTimeline(serviceRef: string, o: Output & { project?: string }) {
  const { api } = apiClient();
  const service = await findService(api, serviceRef, o.project);
  const path = { params: { path: { serviceId: service.id } } };
  const [{ releases }, { deployments }] = await Promise.all([
    answer(api.GET('/api/services/{serviceId}/releases', path)),
    answer(api.GET('/api/services/{serviceId}/deployments', path)),
  ]);
  const entries = releaseTimelineOf(releases, deployments);
  if (o.json) {
    // `history` is the JSON key scripts have read since this was `slipway history`.
    out(JSON.stringify({ history: entries }));
    return;
  }
  out(
    entries.length === 0
      ? `${service.slug} has no release yet: slipway deploy ${service.id}`
      : table(
          ['VERSION', 'KIND', 'STATUS', 'COMMIT', 'WHEN', 'DESCRIPTION'],
          entries.map((e) => [e.version + (e.current ? ' *' : ''), e.kind, e.status.slice(0, 60), e.commit, e.at, e.description.slice(0, 50)]),
        ),
  );
}
