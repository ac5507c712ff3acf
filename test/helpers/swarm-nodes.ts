import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const SCRIPT = join(import.meta.dirname, '..', '..', 'scripts', 'lib', 'swarm-nodes.sh');

export interface SwarmNode {
  index: number;
  /** Where the host and the other nodes reach it. */
  address: string;
  /** Its engine's socket, for dockerode or `docker -H unix://…`. */
  socket: string;
  /** Freezes its engine (SIGSTOP), as a machine that stops answering; `resume` lets it go on. */
  pause(): void;
  resume(): void;
  stop(): Promise<void>;
}

/**
 * A Docker engine in its own network namespace (with `noNewPrivileges`, its daemon.json sets `"no-new-privileges": true`) on this machine (../shared/SWARM-NOTES.md): a node for the
 * cluster tests that never turns the host's own engine into a Swarm. Needs root, iproute2 and nsenter.
 */
export async function startSwarmNode(index: number, options: { noNewPrivileges?: boolean } = {}): Promise<SwarmNode> {
  const dir = mkdtempSync(join(tmpdir(), `slipway-node${index}-`));
  await run('bash', [SCRIPT, 'swarm_node_start', String(index), dir, ...(options.noNewPrivileges ? ['nnp'] : [])], { timeout: 60_000 });
  return {
    index,
    address: `100.115.0.${10 + index}`,
    socket: join(dir, 'docker.sock'),
    pause: () => process.kill(Number(readFileSync(join(dir, 'dockerd.pid'), 'utf8')), 'SIGSTOP'),
    resume: () => process.kill(Number(readFileSync(join(dir, 'dockerd.pid'), 'utf8')), 'SIGCONT'),
    stop: async () => {
      await run('bash', [SCRIPT, 'swarm_node_stop', String(index), dir], { timeout: 60_000 });
    },
  };
}

/** The bridge the nodes share goes once the last node has stopped. */
export const removeSwarmNetwork = async () => void (await run('bash', [SCRIPT, 'swarm_net_down'], { timeout: 30_000 }));
