import type { components } from '../../shared/api-types.js';
import { answer, apiClient, CliError, dashboardLink, type Api } from './client.js';
import { ask } from './confirm.js';
import { readEvents } from './event-stream.js';
import { endProgress, out, progress } from './output.js';
import { findService } from './resolve.js';

type Deployment = components['schemas']['Deployment'];
type LogLine = components['schemas']['DeploymentLogLine'];
type RuntimeLine = components['schemas']['RuntimeLogLine'];

const FINISHED = new Set(['succeeded', 'failed', 'aborted', 'canceled', 'rolled_back']);
const RECONNECTS = 5;

async function deploymentOf(api: Api, serviceId: string, deploymentId: string): Promise<Deployment | undefined> {
  const { deployments } = await answer(api.GET('/api/services/{serviceId}/deployments', { params: { path: { serviceId } } }));
  return deployments.find((d) => d.id === deploymentId);
}

/**
 * Queues a deployment and follows its log until it ends: exit code 0 only if it succeeded. Ctrl-C asks
 * whether to abort it; declining (or Ctrl-C again) stops following and leaves it running.
 */
export async function deploy(serviceRef: string, o: { json?: boolean }): Promise<number> {
  const { api } = apiClient();
  const service = await findService(api, serviceRef);
  const { deployment: queued } = await answer(api.POST('/api/services/{serviceId}/deployments', { params: { path: { serviceId: service.id } } }));
  return follow(api, service, queued, o);
}

/**
 * Rolls the service back (to the release before the current one, or to `--to <version>`) and follows
 * the rollback like a deployment.
 */
export async function rollback(serviceRef: string | undefined, o: { json?: boolean; to?: string; config?: string }): Promise<number> {
  const { api } = apiClient();
  const service = await findService(api, serviceRef ?? (await onlyService(api)));
  let releaseId: string | undefined;
  if (o.to !== undefined) {
    const version = Number(o.to.replace(/^v/, ''));
    const { releases } = await answer(api.GET('/api/services/{serviceId}/releases', { params: { path: { serviceId: service.id } } }));
    const release = releases.find((r) => r.version === version);
    if (!release) throw new CliError(`${service.slug} has no release ${o.to}; its releases: ${releases.map((r) => `v${r.version}`).join(', ') || 'none'}`);
    releaseId = release.id;
  }
  if (o.config !== undefined && o.config !== 'release' && o.config !== 'current') throw new CliError('--config is release or current');
  const body = { ...(releaseId ? { releaseId } : {}), config: (o.config ?? 'release') as 'release' | 'current' };
  const { deployment: queued } = await answer(api.POST('/api/services/{serviceId}/rollback', { params: { path: { serviceId: service.id } }, body }));
  return follow(api, service, queued, o);
}

/** `start` and `restart` run the current release again, followed like a deployment; `stop` answers at once. */
export async function control(action: 'stop' | 'start' | 'restart', serviceRef: string, o: { json?: boolean }): Promise<number> {
  const { api } = apiClient();
  const service = await findService(api, serviceRef);
  const path = { params: { path: { serviceId: service.id } } };
  if (action === 'stop') {
    const data = await answer(api.POST('/api/services/{serviceId}/stop', path));
    out(o.json ? JSON.stringify(data) : `stopped ${service.slug}; its routes answer 503 until slipway start ${service.slug}`);
    return 0;
  }
  const { deployment: queued } = await answer(
    action === 'start' ? api.POST('/api/services/{serviceId}/start', path) : api.POST('/api/services/{serviceId}/restart', path),
  );
  return follow(api, service, queued, o);
}

/** A database service's move to another cluster node, followed like a deployment. */
export async function move(serviceRef: string, nodeId: string, o: { json?: boolean }): Promise<number> {
  const { api } = apiClient();
  const service = await findService(api, serviceRef);
  const { deployment: queued } = await answer(api.POST('/api/services/{serviceId}/move', { params: { path: { serviceId: service.id } }, body: { nodeId } }));
  return follow(api, service, queued, o);
}

/** With no service named: the one service the key can see, if there is exactly one. */
async function onlyService(api: Api): Promise<string> {
  const { projects } = await answer(api.GET('/api/projects'));
  const all = projects.flatMap((p) => p.services.map((s) => `${p.slug}/${s.slug}`));
  if (all.length === 1) return all[0]!;
  throw new CliError(`say which service: this key sees ${all.length === 0 ? 'none' : all.join(', ')}`);
}

async function follow(api: Api, service: { id: string; slug: string }, queued: Deployment, o: { json?: boolean }): Promise<number> {
  if (o.json) out(JSON.stringify({ deployment: queued }));
  else {
    process.stderr.write(`in the dashboard: ${dashboardLink(`/deployments/${queued.id}`)}\n`);
    progress(`${queued.kind === 'deploy' ? 'deployment' : queued.kind} ${queued.id} of ${service.slug} queued; waiting for its first line…`);
  }

  const stop = new AbortController();
  let asking = false;
  const onInterrupt = () => {
    if (asking) return;
    asking = true;
    endProgress();
    void ask(`\nAbort deployment ${queued.id}? [y/N] `).then(async (reply) => {
      asking = false;
      if (reply !== null && /^y(es)?$/i.test(reply.trim())) {
        await answer(api.POST('/api/deployments/{deploymentId}/abort', { params: { path: { deploymentId: queued.id } } })).then(
          () => process.stderr.write('abort requested; following until it has stopped…\n'),
          (error: unknown) => process.stderr.write(`slipway: ${error instanceof Error ? error.message : String(error)}\n`),
        );
        return;
      }
      process.stderr.write(`stopped following; deployment ${queued.id} goes on\n`);
      stop.abort();
    });
  };
  process.on('SIGINT', onInterrupt);
  try {
    let last = 0;
    for (let attempt = 0; !stop.signal.aborted; attempt++) {
      try {
        const body = await answer(api.GET('/api/deployments/{deploymentId}/stream', { params: { path: { deploymentId: queued.id } }, parseAs: 'stream', signal: stop.signal }));
        if (!body) throw new CliError('the stream answered without a body');
        for await (const { event, data } of readEvents(body)) {
          const lines = event === 'snapshot' ? (data as LogLine[]) : event === 'log' ? [data as LogLine] : [];
          for (const line of lines.filter((l) => l.id > last)) {
            if (last === 0 && !o.json) endProgress();
            last = line.id;
            out(o.json ? JSON.stringify({ event: 'log', data: line }) : line.line);
          }
        }
        break;
      } catch (error) {
        if (stop.signal.aborted) return 130;
        if (error instanceof CliError || attempt >= RECONNECTS) throw error;
        progress(`the log stream broke (${error instanceof Error ? error.message : String(error)}); reconnecting…`);
        await new Promise((r) => setTimeout(r, 500 * (attempt + 1)));
      }
    }
    if (stop.signal.aborted) return 130;
    const done = await deploymentOf(api, service.id, queued.id);
    if (o.json) out(JSON.stringify({ deployment: done ?? null }));
    else if (!done || !FINISHED.has(done.status)) out(`the log ended but deployment ${queued.id} is ${done?.status ?? 'gone'}`);
    else {
      out(`deployment ${done.id} ${done.status}${done.reason ? `: ${done.reason}` : ''}`);
      if (done.status === 'failed') out(`why, and what to do: slipway deployments explain ${done.id}`);
    }
    return done?.status === 'succeeded' ? 0 : 1;
  } finally {
    process.off('SIGINT', onInterrupt);
  }
}

/** Follows the running container's output until it stops or is replaced. */
export async function logs(serviceRef: string, o: { json?: boolean }): Promise<number> {
  const { api } = apiClient();
  const service = await findService(api, serviceRef);
  progress(`connecting to the output of ${service.slug}…`);
  const body = await answer(api.GET('/api/services/{serviceId}/runtime-logs/stream', { params: { path: { serviceId: service.id } }, parseAs: 'stream' }));
  if (!body) throw new CliError('the stream answered without a body');
  endProgress();
  let following = false;
  for await (const { event, data } of readEvents(body)) {
    if (o.json) {
      out(JSON.stringify({ event, data }));
      continue;
    }
    if (event === 'snapshot' || event === 'log') for (const line of event === 'snapshot' ? (data as RuntimeLine[]) : [data as RuntimeLine]) out(line.line);
    if (event === 'status') {
      const { ok, closed } = data as { ok: boolean; closed: boolean };
      if (ok && !closed) following = true;
      if (closed) {
        process.stderr.write(following ? 'the container stopped or was replaced by a new deployment\n' : `${service.slug} has no running container: deploy it with slipway deploy ${service.id}\n`);
        return following ? 0 : 1;
      }
    }
  }
  return 0;
}
