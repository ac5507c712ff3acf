import type Docker from 'dockerode';

/** The manager's engine, loaded at the first cluster request: dockerode weighs megabytes a single server may never need. */
export interface ClusterEngine {
  docker(): Promise<Docker>;
}

export function clusterEngine(socketPath: string): ClusterEngine {
  let loaded: Promise<Docker> | null = null;
  return {
    docker: () => (loaded ??= import('dockerode').then(({ default: Dockerode }) => new Dockerode({ socketPath }))),
  };
}
