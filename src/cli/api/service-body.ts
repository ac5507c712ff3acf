import { ENGINE_CATALOGUE } from '../../../commands/service/engines.js';
import type { Engine } from '../../shared/database-engine.js';
import { UsageError } from './usage-error.js';

/** What a new service runs: exactly one of an image, a hosted repository, a Git URL, pushes or a database engine. */
export interface ServiceSource {
  image?: string;
  repo?: string;
  gitUrl?: string;
  /** No upstream: built from what is pushed to Slipway. */
  push?: boolean;
  engine?: Engine;
  branch?: string;
  port?: string;
  mode?: 'web' | 'worker' | 'static';
  public?: boolean;
  /** Cluster mode: how many tasks run. */
  replicas?: string;
  /** Cluster mode: the node a database goes on. */
  node?: string;
}

/** The request body of `POST /api/projects/{id}/services` for what the options name. */
export function serviceBody(name: string, o: ServiceSource) {
  const sources = [o.image, o.repo, o.gitUrl, o.push || undefined, o.engine].filter((s) => s !== undefined);
  if (sources.length !== 1) throw new UsageError('give exactly one of --image, --repo, --git-url, --push or --engine');
  const port = o.port === undefined ? undefined : Number(o.port);
  if (port !== undefined && !(Number.isInteger(port) && port > 0 && port < 65536)) throw new UsageError(`--port ${o.port} is not a port`);
  const replicas = o.replicas === undefined ? undefined : Number(o.replicas);
  if (replicas !== undefined && !(Number.isInteger(replicas) && replicas >= 1 && replicas <= 100)) throw new UsageError(`--replicas ${o.replicas} is not a number of tasks (1–100)`);
  if (replicas !== undefined && o.engine) throw new UsageError('--replicas is for apps: a database runs one task');
  if (o.node !== undefined && !o.engine) throw new UsageError('--node is for databases: Swarm places the tasks of apps (nodeLabels)');
  if (o.engine) {
    if (o.mode && o.mode !== 'web') throw new UsageError('--mode is for apps, not databases');
    const spec = ENGINE_CATALOGUE[o.engine];
    return {
      name,
      repoFullName: `database:${o.engine}`,
      repoUrl: 'database',
      branch: 'main',
      internalPort: port ?? spec.port,
      databasePublicEnabled: Boolean(o.public),
      ...(o.node !== undefined ? { nodeId: o.node } : {}),
      env: [],
    };
  }
  const common = {
    name,
    ...(port !== undefined ? { internalPort: port } : {}),
    ...(o.mode ? { runtimeMode: o.mode } : {}),
    ...(o.branch ? { branch: o.branch } : {}),
    ...(replicas !== undefined ? { replicas } : {}),
    env: [],
  };
  if (o.image) return { ...common, repoUrl: 'docker-image', dockerImage: o.image };
  if (o.repo) return { ...common, repoFullName: o.repo };
  if (o.push) return { ...common, repoUrl: 'push' };
  return { ...common, repoUrl: o.gitUrl! };
}
