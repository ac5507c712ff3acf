/** What the deployer needs from a container engine; Docker through dockerode is the one implementation. */
export interface ContainerSpec {
  /** Carries the deployment id, so a retried start finds its own container (idempotency). */
  name: string;
  image: string;
  env: Record<string, string>;
  labels: Record<string, string>;
  network: string;
  /** Names other containers on the network reach this one by. */
  aliases: string[];
  internalPort: number | null;
  /** Published on an ephemeral loopback port when set. */
  publish: boolean;
  command?: string[];
}

export interface RunningContainer {
  id: string;
  name: string;
  /** Loopback port the internal port is published on, when published. */
  hostPort: number | null;
}

export interface OwnedContainer {
  id: string;
  name: string;
  labels: Record<string, string>;
  running: boolean;
}

export interface ContainerRuntime {
  ping(): Promise<void>;
  ensureNetwork(name: string, labels: Record<string, string>): Promise<void>;
  run(spec: ContainerSpec): Promise<RunningContainer>;
  /** Stops (SIGTERM, then SIGKILL after `graceSeconds`) and removes; a missing container is fine. */
  remove(name: string, graceSeconds: number): Promise<void>;
  /** Containers carrying every given label. */
  list(labels: Record<string, string>): Promise<OwnedContainer[]>;
}

export const LABEL = {
  managed: 'slipway.managed',
  project: 'slipway.project',
  service: 'slipway.service',
  deployment: 'slipway.deployment',
} as const;
