import { Writable } from 'node:stream';
import type Docker from 'dockerode';
import { execIn } from '../runtime/docker-exec.js';
import { AGENT_SERVICE } from './cluster-agent.js';
import { engineAppliesSpecNoNewPrivileges, specCarriesNoNewPrivileges } from './engine-api.js';

const STATUS_LIMIT = 64 * 1024;

/** The `NoNewPrivs:` line of /proc/<pid>/status: 1 when the process (and all it starts) cannot gain privileges. */
export function noNewPrivsOf(status: string): boolean | null {
  const m = /^NoNewPrivs:\s*([01])\s*$/m.exec(status);
  return m ? m[1] === '1' : null;
}

/**
 * Whether a node's daemon starts containers with no-new-privileges (daemon.json `"no-new-privileges": true`). The
 * engine's info does not say (its SecurityOptions leave it out, checked on Docker 20.10), so it is read where it
 * shows: PID 1 of the node's agent, itself a Swarm task whose spec asks for nothing, so it runs as the node's
 * daemon starts any task. Our own image is asked, never an app's. Null when the node has no running agent.
 */
export async function daemonNoNewPrivileges(docker: Docker, signal: AbortSignal): Promise<{ agent: string; enforced: boolean | null } | null> {
  const [agent] = await docker.listContainers({ filters: { label: [`com.docker.swarm.service.name=${AGENT_SERVICE}`], status: ['running'] }, abortSignal: signal });
  if (!agent) return null;
  let status = '';
  const collect = new Writable({
    write(chunk: Buffer, _encoding, done) {
      status = (status + chunk.toString('utf8')).slice(0, STATUS_LIMIT);
      done();
    },
  });
  const { exitCode } = await execIn(docker, agent.Id, { cmd: ['cat', '/proc/1/status'], stdout: collect }, signal);
  return { agent: agent.Id, enforced: exitCode === 0 ? noNewPrivsOf(status) : null };
}

/** What is known of a node's tasks' no-new-privileges, for the warning. */
export interface NodeProtection {
  id: string;
  hostname: string;
  engineVersion: string;
  /** The node's daemon default; null while unknown. */
  daemon: boolean | null;
  /** Tasks of Slipway's services (not its agent or router) that should run there now. */
  appTasks: number;
}

/**
 * The nodes whose app tasks run without no-new-privileges: neither does the spec set it (the manager speaks an
 * API before 1.46, or the node's engine predates 27 and ignores it) nor does the node's daemon by default.
 * A node whose daemon is not known yet is not named.
 */
export function unprotectedNodes(nodes: readonly NodeProtection[], managerApiVersion: string): NodeProtection[] {
  return nodes.filter((n) => n.appTasks > 0 && n.daemon === false && !(specCarriesNoNewPrivileges(managerApiVersion) && engineAppliesSpecNoNewPrivileges(n.engineVersion)));
}
