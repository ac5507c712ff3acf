import { inReasonOrLog, quote } from './log-lines.js';
import { redeploy, setVariable } from './commands.js';
import type { BuiltinRule } from './rule.js';

export const interrupted: BuiltinRule = {
  id: 'slipway-interrupted',
  explain({ reason }) {
    const m = reason.match(/^Slipway (stopped while this deployment was running|lost track of this run)/);
    if (!m) return null;
    const docker = reason.match(/Docker was unreachable at restart \((.+)\)/);
    return {
      summary: 'The deployment was cut short by Slipway itself, not by the app: Slipway stopped or lost track of the run before it ended.',
      likelyCause: `Slipway recorded: ${quote(reason)}. Nothing in the app or its settings needs to change${docker ? `, but the Docker engine was unreachable when Slipway restarted (${docker[1]})` : ''}.`,
      suggestedFix: docker
        ? 'Make sure the Docker engine is running and reachable by Slipway, then deploy again.'
        : 'Deploy again. If Slipway keeps stopping during deployments, check why it restarts (memory, a supervisor, crashes in its own log).',
      commands: [...(docker ? ['docker info', 'sudo systemctl start docker'] : []), redeploy],
    };
  },
};

export const dockerUnreachable: BuiltinRule = {
  id: 'docker-unreachable',
  explain({ reason }) {
    const m = reason.match(/^Docker engine unreachable: (.+)$/);
    if (!m) return null;
    return {
      summary: 'Slipway could not reach the Docker engine, so nothing was built or started.',
      likelyCause: `The Docker engine did not answer: ${quote(m[1]!)}. Either dockerd is not running, or Slipway looks for it on another socket (SLIPWAY_DOCKER_SOCKET, default /var/run/docker.sock), or it may not use that socket.`,
      suggestedFix: 'Start the Docker engine (or fix SLIPWAY_DOCKER_SOCKET) and make sure the user Slipway runs as may use the socket, then deploy again.',
      commands: ['docker info', 'sudo systemctl start docker', 'ls -l /var/run/docker.sock', redeploy],
    };
  },
};

export const networkPoolsExhausted: BuiltinRule = {
  id: 'network-pools-exhausted',
  explain(input) {
    if (!inReasonOrLog(input, /could not find an available, non-overlapping IPv4 address pool/)) return null;
    return {
      summary: 'Docker has no address range left for a new network, so the container could not be created.',
      likelyCause:
        "Every Slipway project has its own Docker network, and Docker's default address pools hold about 30 networks on one host. Other projects, other tools' networks or leftovers have taken them all.",
      suggestedFix:
        'Remove networks nothing uses, or give Docker a larger pool in /etc/docker/daemon.json (for example {"default-address-pools":[{"base":"10.213.0.0/16","size":24}]}, 256 networks) and restart dockerd, then deploy again.',
      commands: ['docker network ls', 'docker network prune', 'sudo systemctl restart docker', redeploy],
    };
  },
};

const REFERENCE = /\$\{([^{}]+?)\.([A-Z_][A-Z0-9_]*)\}/g;

export const unresolvedReference: BuiltinRule = {
  id: 'unresolved-variable-reference',
  explain({ reason }) {
    const m = reason.match(/variable (\S+) refers to (.+?), which no service of this project defines/);
    if (!m) return null;
    const variable = m[1]!;
    const references = [...m[2]!.matchAll(REFERENCE)].map((r) => ({ text: r[0], service: r[1]!, key: r[2]! }));
    const first = references[0];
    const named = references.map((r) => `${r.text} (variable ${r.key} of the service "${r.service}")`).join(', ');
    return {
      summary: `The variable ${variable} refers to ${m[2]}, which does not exist in this project, so Slipway stopped before building.`,
      likelyCause: `Slipway resolves \${service.VARIABLE} references within the project, finding the service by name or slug; ${named || m[2]} matched nothing. The service name or the variable name is misspelt (names are case-sensitive), the service is in another project, or that variable was never set or was deleted.`,
      suggestedFix: first
        ? `Either set ${first.key} on the service "${first.service}" of this project (TARGET_SERVICE_ID below is that service's id), or change ${variable} so that it refers to a service and variable that exist (check the names in the project's service overviews), then deploy again.`
        : `Fix the reference in ${variable} so it names an existing service and variable, then deploy again.`,
      // TARGET_SERVICE_ID: the id of the service the reference names.
      commands: [...(first ? [setVariable(first.key, '…', 'TARGET_SERVICE_ID')] : []), redeploy],
    };
  },
};
