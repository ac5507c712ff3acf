import type Docker from 'dockerode';
import type { PrivilegeProfile, ResourceLimits } from './container-runtime.js';

interface Privileges {
  capDrop: readonly string[];
  capAdd: readonly string[];
  /** Processes and threads together (the kernel counts both): a fork bomb stops here, not at the host's limit. */
  pidsLimit: number;
}

/**
 * The one place that decides what a container may do. Every profile runs with no-new-privileges: a setuid
 * binary or a file capability inside the image never raises a process above what it started with.
 */
export const PRIVILEGES: Record<PrivilegeProfile, Privileges> = {
  // Docker's default set keeps what ordinary images do as root (own files, step down to a user, bind a port
  // below 1024); raw sockets (ping, spoofing), device nodes, chroot, file capabilities and the audit log are
  // for system tools, not apps. 1024 tasks: a JVM or a pool of workers uses a few hundred at most.
  app: { capDrop: ['NET_RAW', 'MKNOD', 'SYS_CHROOT', 'SETFCAP', 'AUDIT_WRITE'], capAdd: [], pidsLimit: 1024 },
  // The official entrypoints start as root only to hand the data directory to the engine's user (chown, and
  // chmod of a directory that user owns, walking directories only that user may read) and to step down
  // (gosu, su-exec, `clickhouse su`); Slipway's TLS hand-over and restores (run through `docker exec`) do the
  // same. 4096 tasks: ClickHouse starts pools of hundreds of threads, MySQL a thread and Postgres a process
  // per connection.
  database: { capDrop: ['ALL'], capAdd: ['CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'SETGID', 'SETUID'], pidsLimit: 4096 },
  // pg_dump | pg_restore and the like: plain clients that need no privilege at all.
  helper: { capDrop: ['ALL'], capAdd: [], pidsLimit: 256 },
};

/** The engine's part of a container's HostConfig for a profile and the service's limits. */
export function privilegedHostConfig(profile: PrivilegeProfile, limits: ResourceLimits = {}): Docker.HostConfig {
  const p = PRIVILEGES[profile];
  return {
    SecurityOpt: ['no-new-privileges:true'],
    CapDrop: [...p.capDrop],
    ...(p.capAdd.length > 0 ? { CapAdd: [...p.capAdd] } : {}),
    PidsLimit: limits.pids === undefined ? p.pidsLimit : Math.min(p.pidsLimit, limits.pids),
    // Swap counts against the limit: with the engine's default (twice the limit) a leak would swap, not stop.
    ...(limits.memoryBytes !== undefined ? { Memory: limits.memoryBytes, MemorySwap: limits.memoryBytes } : {}),
    ...(limits.memoryReservationBytes !== undefined ? { MemoryReservation: limits.memoryReservationBytes } : {}),
    ...(limits.cpus !== undefined ? { NanoCpus: Math.round(limits.cpus * 1e9) } : {}),
  };
}
