import type Docker from 'dockerode';

/** The manager's Docker host, loaded at the first cluster request: dockerode weighs megabytes a single server may never need. */
export interface ManagerHost {
  docker(): Promise<Docker>;
}

export function managerHost(socketPath: string): ManagerHost {
  let loaded: Promise<Docker> | null = null;
  return {
    docker: () => (loaded ??= import('dockerode').then(({ default: Dockerode }) => new Dockerode({ socketPath }))),
  };
}
