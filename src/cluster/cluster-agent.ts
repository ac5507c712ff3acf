import { createHash } from 'node:crypto';
import type Docker from 'dockerode';
import type { AgentCredentials } from './agent-credentials.js';
import { localImageId } from './configured-container.js';
import { ensureNamedByContent, inspectService } from './swarm-updates.js';
import { pushImage, registryAuth, type RegistryAccess } from './registry.js';

export const AGENT_SERVICE = 'slipway-agent';
const STAMP_LABEL = 'slipway.agent-stamp';

export interface AgentSettings {
  image: string;
  port: number;
  /** The engine's socket on every node. */
  nodeSocket: string;
}

/**
 * What the agent does with each connection, after socat has checked Slipway's client certificate: its first
 * line names the target, the node's engine (`docker`) or a port on the node's loopback (`tcp:<port>`, where a
 * database publishes its port for this node only). Anything else closes the connection.
 */
const ROUTE = `read -r to
case "$to" in
  docker) exec socat STDIO UNIX-CONNECT:/var/run/docker.sock ;;
  tcp:*) port=\${to#tcp:}; case "$port" in ''|*[!0-9]*) exit 1 ;; esac; exec socat STDIO "TCP:127.0.0.1:$port" ;;
esac
exit 1`;

const START = `printf '%s\\n' "$SLIPWAY_ROUTE" > /tmp/route && exec socat "OPENSSL-LISTEN:$SLIPWAY_AGENT_PORT,fork,reuseaddr,cert=/run/secrets/agent-cert.pem,key=/run/secrets/agent-key.pem,cafile=/run/secrets/agent-ca.pem,verify=1" "SYSTEM:sh /tmp/route"`;

/** A secret file of the agent's, read by root only. */
async function ensureSecret(docker: Docker, file: string, data: string): Promise<Docker.SecretReference> {
  const { id, name } = await ensureNamedByContent(docker, 'secret', `slipway-${file.replace('.pem', '')}`, Buffer.from(data));
  return { SecretID: id, SecretName: name, File: { Name: file, UID: '0', GID: '0', Mode: 0o400 } };
}

/**
 * A global service: one agent task on every node, on the node's own network so that it listens on the node's
 * address and reaches the node's loopback. Its image goes through the registry like a release. Kept as it is
 * while its stamp (image, settings, credentials) is unchanged; otherwise updated, stop-first (the port is the node's).
 */
export async function ensureAgent(docker: Docker, registry: RegistryAccess, settings: AgentSettings, credentials: AgentCredentials): Promise<void> {
  const imageId = await localImageId(docker, settings.image);
  const stamp = createHash('sha256')
    .update(JSON.stringify([imageId, settings, registry.address, credentials.agent.certPem, credentials.authority.certPem]))
    .digest('hex');
  const current = await inspectService(docker, AGENT_SERVICE);
  if ((current?.Spec.Labels as Record<string, string> | undefined)?.[STAMP_LABEL] === stamp) return;

  const image = await pushImage(docker, imageId, 'slipway/agent', imageId.replace('sha256:', '').slice(0, 16), registry);
  const secrets = await Promise.all([
    ensureSecret(docker, 'agent-ca.pem', credentials.authority.certPem),
    ensureSecret(docker, 'agent-cert.pem', credentials.agent.certPem),
    ensureSecret(docker, 'agent-key.pem', credentials.agent.keyPem),
  ]);
  const spec: Docker.ServiceSpec = {
    Name: AGENT_SERVICE,
    Labels: { 'slipway.managed': 'true', [STAMP_LABEL]: stamp },
    Mode: { Global: {} },
    TaskTemplate: {
      ContainerSpec: {
        Image: image,
        Command: ['sh', '-c', START],
        Env: [`SLIPWAY_AGENT_PORT=${settings.port}`, `SLIPWAY_ROUTE=${ROUTE}`],
        Mounts: [{ Type: 'bind' as const, Source: settings.nodeSocket, Target: '/var/run/docker.sock' }],
        Secrets: secrets,
      },
      Networks: [{ Target: 'host' }],
      RestartPolicy: { Condition: 'any' as const, Delay: 1_000_000_000 },
    },
    UpdateConfig: { Parallelism: 0, Order: 'stop-first', FailureAction: 'continue' },
  };
  const auth = registryAuth(registry);
  if (current) await docker.getService(current.ID).update({ authconfig: auth, _query: { version: current.Version.Index }, _body: spec });
  else await docker.createService(auth, spec);
}
