import type Docker from 'dockerode';
import type { HealthCheck } from '../../commands/service/health-check.js';
import type { ResourceLimits } from '../runtime/container-runtime.js';
import { PRIVILEGES } from '../runtime/container-privileges.js';
import { specCarriesNoNewPrivileges } from './engine-api.js';

export interface SwarmServiceInput {
  name: string;
  /** By digest from the cluster's registry: every node runs the same build. */
  image: string;
  env: Record<string, string>;
  labels: Record<string, string>;
  replicas: number;
  /** Only nodes with all these labels run the tasks. */
  nodeLabels: Record<string, string>;
  network: string;
  aliases: string[];
  healthCheck: HealthCheck | null;
  internalPort: number;
  limits: ResourceLimits;
  stopGraceSeconds: number;
  /** The Engine API version the manager speaks (`1.41`): from 1.46 on, the spec itself sets no-new-privileges. */
  engineApiVersion: string;
  /** Where the static probe is mounted in each task, and the Swarm config that carries it. */
  probe?: { path: string; configId: string; configName: string };
}

const NS = 1_000_000_000;
const FIRST_CHECK_SECONDS = 1;

/** The API's Privileges as of 1.46; dockerode's types predate its NoNewPrivileges. */
type TaskPrivileges = Docker.Privileges & { NoNewPrivileges?: boolean };
const NO_NEW_PRIVILEGES: TaskPrivileges = { NoNewPrivileges: true };

/** Swarm's health check: run inside the task (so a task joins DNS only when healthy); HTTP and TCP by the probe. */
function healthOf(check: HealthCheck | null, internalPort: number, probePath: string | undefined) {
  if (!check) return undefined;
  const port = String(check.port ?? internalPort);
  let test: string[];
  if (check.type === 'command') test = ['CMD', ...check.command];
  else if (!probePath) throw new Error('an HTTP or TCP check needs the probe');
  else if (check.type === 'http') test = ['CMD', probePath, 'http', port, check.path, check.expectStatus, String(check.timeoutSeconds)];
  else test = ['CMD', probePath, 'tcp', port, String(check.timeoutSeconds)];
  // The engine runs a task's first check one interval after it starts (this engine has no start interval), and
  // a task joins routing only once healthy: a 5 s interval would cost 5 s per task of every update. So tasks
  // are checked every second at most, with as many retries as keep the time to "unhealthy" the service's own.
  const interval = Math.min(check.intervalSeconds, FIRST_CHECK_SECONDS);
  return {
    Test: test,
    Interval: interval * NS,
    Timeout: check.timeoutSeconds * NS,
    Retries: Math.ceil((check.intervalSeconds * check.retries) / interval),
    StartPeriod: check.startPeriodSeconds * NS,
  };
}

/** The Swarm ServiceSpec of a release: start-first updates one task at a time, rolled back by Swarm on failure. */
export function swarmServiceSpec(input: SwarmServiceInput) {
  const health = healthOf(input.healthCheck, input.internalPort, input.probe?.path);
  // A task counts as running only once healthy, and one that never gets there fails by itself: the window
  // after each task (Swarm's default) only catches one that dies right after. A longer one is paid per task.
  const update = { Parallelism: 1, Delay: 0, Order: 'start-first', FailureAction: 'rollback', Monitor: 5 * NS, MaxFailureRatio: 0 };
  const limits = input.limits;
  // A task is an app container on a node: the single server's app profile. no-new-privileges has no place in a
  // service spec before API 1.46; there only a node's daemon (`no-new-privileges`) sets it (cluster/node-privileges.ts).
  const profile = PRIVILEGES.app;
  const pids = limits.pids === undefined ? profile.pidsLimit : Math.min(profile.pidsLimit, limits.pids);
  return {
    Name: input.name,
    Labels: input.labels,
    TaskTemplate: {
      ContainerSpec: {
        Image: input.image,
        Env: Object.entries(input.env).map(([k, v]) => `${k}=${v}`),
        Labels: input.labels,
        StopGracePeriod: input.stopGraceSeconds * NS,
        CapabilityDrop: [...profile.capDrop],
        ...(profile.capAdd.length > 0 ? { CapabilityAdd: [...profile.capAdd] } : {}),
        ...(specCarriesNoNewPrivileges(input.engineApiVersion) ? { Privileges: NO_NEW_PRIVILEGES } : {}),
        ...(health ? { HealthCheck: health } : {}),
        ...(input.probe
          ? { Configs: [{ File: { Name: input.probe.path, UID: '0', GID: '0', Mode: 0o555 }, ConfigID: input.probe.configId, ConfigName: input.probe.configName }] }
          : {}),
      },
      Resources: {
        Limits: {
          ...(limits.cpus ? { NanoCPUs: Math.round(limits.cpus * NS) } : {}),
          ...(limits.memoryBytes ? { MemoryBytes: limits.memoryBytes } : {}),
          Pids: pids,
        },
        Reservations: limits.memoryReservationBytes ? { MemoryBytes: limits.memoryReservationBytes } : {},
      },
      RestartPolicy: { Condition: 'any', Delay: 1 * NS },
      Placement: { Constraints: Object.entries(input.nodeLabels).map(([k, v]) => `node.labels.${k}==${v}`) },
      Networks: [{ Target: input.network, Aliases: input.aliases }],
    },
    Mode: { Replicated: { Replicas: input.replicas } },
    UpdateConfig: update,
    RollbackConfig: { ...update, FailureAction: 'pause' },
    // No IPVS here, and none needed: the router resolves the tasks' own addresses.
    EndpointSpec: { Mode: 'dnsrr' },
  };
}
export type SwarmServiceSpec = ReturnType<typeof swarmServiceSpec>;
