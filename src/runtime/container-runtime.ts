import type { Engine } from '../shared/database-engine.js';
import type { Readable, Writable } from 'node:stream';

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
  /** Published on an ephemeral loopback port when set (unless `binding` names the port). */
  publish: boolean;
  /** A fixed host binding of the internal port, e.g. a database's `hostPort` on all interfaces. */
  binding?: { ip: string; port: number };
  command?: string[];
  /** Named volumes, created (with these labels) when missing. */
  volumes?: { name: string; target: string; labels: Record<string, string> }[];
  /** Files written into the container before it starts (certificates, configuration holding a password). */
  files?: ContainerFile[];
  /** What the container may do (see container-privileges.ts); `helper`, the least, when absent. */
  privileges?: PrivilegeProfile;
  /** The service's resource limits, when it has some. */
  limits?: ResourceLimits;
}

/**
 * `app`: apps, workers and static sites (Docker's default capabilities less the ones an app has no use for);
 * `database:<engine>`: what that engine's official entrypoint does as root before it steps down to its user;
 * `helper`: a one-off tool container (imports), no capability at all.
 */
export type PrivilegeProfile = 'app' | DatabaseProfile | 'helper';
export type DatabaseProfile = `database:${Engine}`;

/** Absent fields set no limit of the service's own (a profile's task limit still holds). */
export interface ResourceLimits {
  /** Memory and swap together: a container never swaps past its limit. */
  memoryBytes?: number;
  memoryReservationBytes?: number;
  /** Fractional CPUs, e.g. 0.5. */
  cpus?: number;
  /** Processes and threads; the profile's own limit caps it. */
  pids?: number;
}

/** One reading of a running container's use (Docker stats). */
export interface ContainerUsage {
  /** Of one CPU: 150 is one and a half CPUs busy. */
  cpuPercent: number;
  memoryBytes: number;
  /** What the engine lets it use: its limit, or the host's memory. */
  memoryLimitBytes: number;
  pids: number;
}

/** A network's address range and the gateway connections through a published port come from. */
export interface NetworkAddresses {
  subnet: string;
  gateway: string | null;
}

export interface ContainerFile {
  path: string;
  content: string;
  mode: number;
  uid: number;
  gid: number;
}

export interface RunningContainer {
  id: string;
  name: string;
  /** Loopback port the internal port is published on, when published. */
  hostPort: number | null;
}

export interface ContainerState {
  /** False while the engine restarts a crashed process. */
  running: boolean;
  exitCode: number | null;
  restarts: number;
  hostPort: number | null;
  /** The engine killed it for memory (its limit, or the host's). */
  oomKilled: boolean;
  /** The container's address on its (project) network, which this host reaches directly; null when it has none. */
  address: string | null;
  /** The engine has started it at least once (false: created, never started). */
  started: boolean;
}

export interface OwnedContainer {
  id: string;
  name: string;
  labels: Record<string, string>;
  running: boolean;
}

export interface OwnedImage {
  id: string;
  tags: string[];
  labels: Record<string, string>;
}

export interface BuildSpec {
  /** Directory sent as the build context, as it is: links are sent as links, never followed. */
  contextDir: string;
  /** The Dockerfile's text; it reaches the engine as an entry of the context, never as a file written to disk. */
  dockerfileText: string;
  tag: string;
  labels: Record<string, string>;
}

export interface OutputLine {
  stream: 'stdout' | 'stderr';
  line: string;
  /** ISO timestamp from the engine, when it gives one. */
  time: string | null;
}

export interface ImageInfo {
  /** `sha256:…`: the image itself, whatever tag later moves. */
  id: string;
  /** `<repository>@sha256:…`, for an image pulled from (or pushed to) a registry; empty for a local build. */
  repoDigests: string[];
  /** The project whose deployment built it here (its Slipway label); null for any other image. */
  project?: string | null;
}

export interface LogOptions {
  tail?: number;
  /** Seconds since the epoch, fractional. */
  since?: string;
  follow: boolean;
  signal?: AbortSignal;
}

export interface ExecSpec {
  cmd: string[];
  env?: Record<string, string>;
  /** `uid[:gid]` or a user name; the image's user when absent. */
  user?: string;
  /** Piped to the command's stdin, which is closed at its end. */
  stdin?: Readable;
  /** Receives the command's stdout, with backpressure; discarded when absent. */
  stdout?: Writable;
}

export interface ExecResult {
  exitCode: number;
  /** The end of what the command wrote to stderr. */
  stderr: string;
}

export interface ContainerRuntime {
  ping(): Promise<void>;
  ensureNetwork(name: string, labels: Record<string, string>): Promise<void>;
  /** The address ranges of an existing network (one per address family it has). */
  networkAddresses(name: string): Promise<NetworkAddresses[]>;
  /** Build output goes line by line to `onLine`; a failed step rejects with the engine's message. */
  build(spec: BuildSpec, onLine: (line: string) => void, signal: AbortSignal): Promise<void>;
  imageExists(reference: string): Promise<boolean>;
  /** The image a reference names now, by its id, with the registry digests it is known by; null if absent. */
  imageInfo(reference: string): Promise<ImageInfo | null>;
  pull(reference: string, onLine: (line: string) => void, signal: AbortSignal): Promise<void>;
  /** The image as `docker save` writes it, to load into another engine unchanged (same id). */
  exportImage(reference: string): Promise<Readable>;
  /** Loads what `exportImage` of another engine gave. */
  importImage(archive: Readable, signal: AbortSignal): Promise<void>;
  /** Removes a tag and the layers only it used; layers the current image shares stay as build cache. */
  removeImage(reference: string): Promise<void>;
  listImages(labels: Record<string, string>): Promise<OwnedImage[]>;
  /** Starts without a restart policy, so a crash while starting shows its exit code instead of a restart loop. */
  run(spec: ContainerSpec): Promise<RunningContainer>;
  /** From now on the engine restarts the container when it exits (and when the engine restarts). */
  keepRunning(name: string): Promise<void>;
  /** null when there is no such container. */
  inspect(name: string, internalPort: number | null): Promise<ContainerState | null>;
  /**
   * The exit code of the container's latest exit since `sinceMs` (epoch ms), from the engine's events: once
   * the engine has restarted a crashed container, its state no longer says how it ended. null when none.
   */
  lastExit(name: string, sinceMs: number): Promise<number | null>;
  /**
   * The container's use as the engine streams it, a reading a second (the first with CPU 0: the engine has no
   * earlier one to compare with), null while it is not running. Ends when the container is removed or the
   * signal fires; throws when there is no such container.
   */
  usage(name: string, signal: AbortSignal): AsyncIterable<ContainerUsage | null>;
  /** Stops (SIGTERM, then SIGKILL after `graceSeconds`) and removes; a missing container is fine. */
  remove(name: string, graceSeconds: number): Promise<void>;
  /** Stops without removing (SIGTERM, then SIGKILL after `graceSeconds`); a stopped or missing one is fine. */
  stop(name: string, graceSeconds: number): Promise<void>;
  /** Starts a stopped container again. */
  start(name: string): Promise<void>;
  /** Containers carrying every given label. */
  list(labels: Record<string, string>): Promise<OwnedContainer[]>;
  /** Removes the volumes carrying every given label (their containers must be gone). */
  removeVolumes(labels: Record<string, string>): Promise<string[]>;
  /** Removes the networks carrying every given label (their containers must be gone); answers their names. */
  removeNetworks(labels: Record<string, string>): Promise<string[]>;
  /** Runs a command inside a running container; resolves when it ends, with its exit code. */
  exec(name: string, spec: ExecSpec, signal: AbortSignal): Promise<ExecResult>;
  /** Writes one file into a container (running or stopped) from a stream of exactly `size` bytes. */
  putFile(name: string, file: { path: string; size: number; mode: number; uid: number; gid: number }, content: Readable): Promise<void>;
  /** Output of a container, line by line; with `follow`, until it stops or the signal fires. */
  logs(name: string, options: LogOptions): AsyncIterable<OutputLine>;
}

export const LABEL = {
  managed: 'slipway.managed',
  /** The installation that created it (see loadInstanceId). */
  instance: 'slipway.instance',
  project: 'slipway.project',
  service: 'slipway.service',
  deployment: 'slipway.deployment',
  /** A job run's or one-off command's container (its run id): no release owns it, the job runner does. */
  jobRun: 'slipway.job-run',
} as const;
