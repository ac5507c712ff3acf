import type Docker from 'dockerode';
import type { Engine } from '../shared/database-engine.js';
import type { DatabaseProfile, PrivilegeProfile, ResourceLimits } from './container-runtime.js';

interface Privileges {
  capDrop: readonly string[];
  capAdd: readonly string[];
  /** Processes and threads together (the kernel counts both): a fork bomb stops here, not at the host's limit. */
  pidsLimit: number;
}

/** What every official entrypoint does as root: hand its directories to its user and step down to it (gosu, `clickhouse su`). */
const STEP_DOWN = ['CHOWN', 'SETGID', 'SETUID'] as const;
/**
 * Reads and walks a data directory only its user may read (the entrypoint's `find <dir> ! -user … -exec chown`
 * on a restart); unlike DAC_OVERRIDE it writes nothing it could not write anyway.
 */
const WALK = 'DAC_READ_SEARCH';
// ClickHouse starts pools of hundreds of threads, MySQL a thread and Postgres a process per connection.
const DATABASE_TASKS = 4096;

/**
 * Each engine's set, checked against its official entrypoint line by line (README, Security): only what the
 * entrypoint does as root before it steps down, plus what Slipway itself runs in the container as root.
 */
const DATABASE: Record<Engine, readonly string[]> = {
  // docker-library/postgres: `chmod 700 "$PGDATA" || :` (may fail), find+chown of PGDATA, gosu. Its init server
  // is stopped by `pg_ctl` as postgres: a signal to its own user's process.
  postgres: [...STEP_DOWN, WALK],
  // The TimescaleDB image runs the postgres entrypoint (su-exec for gosu).
  timeseries: [...STEP_DOWN, WALK],
  // docker-library/mysql: find+chown of datadir and socket directory, gosu; `mysqladmin shutdown` as mysql.
  mysql: [...STEP_DOWN, WALK],
  // docker-library/mongo: find+chown of /data/db and /data/configdb, gosu; `mongod --shutdown` as mongodb.
  mongodb: [...STEP_DOWN, WALK],
  // docker-library/redis: find+chown in /data, gosu. Slipway's restore (docker exec as root) writes into /data,
  // the redis user's directory (DAC_OVERRIDE), and hard-links the snapshot it gave to redis (FOWNER, with the
  // kernel's protected_hardlinks).
  redis: [...STEP_DOWN, 'DAC_OVERRIDE', 'FOWNER'],
  // ClickHouse's entrypoint stays root, starts its init server as clickhouse (`clickhouse su`) and stops it with
  // `kill -s TERM` as root: a signal to another user's process (KILL). It chowns only directories that are
  // root's and open to all in the image, so it walks nothing it cannot read.
  columnar: [...STEP_DOWN, 'KILL'],
};

const database = (engine: Engine): Privileges => ({ capDrop: ['ALL'], capAdd: [...DATABASE[engine]].sort(), pidsLimit: DATABASE_TASKS });

/**
 * The one place that decides what a container may do. Every profile runs with no-new-privileges: a setuid
 * binary or a file capability inside the image never raises a process above what it started with.
 */
export const PRIVILEGES: Record<PrivilegeProfile, Privileges> = {
  // Docker's default set keeps what ordinary images do as root (own files, step down to a user, bind a port
  // below 1024); raw sockets (ping, spoofing), device nodes, chroot, file capabilities and the audit log are
  // for system tools, not apps. 1024 tasks: a JVM or a pool of workers uses a few hundred at most.
  app: { capDrop: ['NET_RAW', 'MKNOD', 'SYS_CHROOT', 'SETFCAP', 'AUDIT_WRITE'], capAdd: [], pidsLimit: 1024 },
  'database:postgres': database('postgres'),
  'database:timeseries': database('timeseries'),
  'database:mysql': database('mysql'),
  'database:redis': database('redis'),
  'database:mongodb': database('mongodb'),
  'database:columnar': database('columnar'),
  // pg_dump | pg_restore and the like: plain clients that need no privilege at all.
  helper: { capDrop: ['ALL'], capAdd: [], pidsLimit: 256 },
};

/** The profile a database engine's container runs under. */
export function databaseProfileOf(engine: Engine): DatabaseProfile {
  return `database:${engine}`;
}

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
