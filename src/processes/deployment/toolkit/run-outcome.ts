import type Docker from 'dockerode';
import type { KeptRelease } from '../../../../commands/release/aggregate.js';
import type { ServiceRow } from '../../../../projections/service-queries.js';
import type { RunResources } from './service-resources.js';

/**
 * What a deployment that went live leaves to do once the service is free again: drain the previous containers and
 * prune the releases no longer kept, and watch the release.
 */
export interface WentLive {
  drainAndPrune(): Promise<void>;
  watch: ReleaseWatch | null;
}

/** A new release to watch for its first seconds, and the release to put back if it misbehaves. */
export interface ReleaseWatch {
  deploymentId: string;
  serviceId: string;
  containerName: string;
  previous: KeptRelease | null;
  row: ServiceRow;
  /** The limits it runs with, to say "out of memory (limit …)". */
  resources: RunResources;
  /** When the watch ends (epoch ms), as recorded with the deployment's success. */
  until: number;
  /** Cluster mode: the release is this Swarm service's current spec, watched through its tasks. */
  swarm?: { docker: Docker; service: string };
}
