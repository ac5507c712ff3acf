import { Agent } from 'node:http';
import { createServer, type AddressInfo, type Server } from 'node:net';
import type { Duplex } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect, type TLSSocket } from 'node:tls';
import type Docker from 'dockerode';
import { AGENT_NAME, type AgentCredentials } from './agent-credentials.js';
import { ensureAgent, type AgentSettings } from './cluster-agent.js';
import { nodeAddressOf } from './swarm-engine.js';
import type { RegistryAccess } from './registry.js';

/** A node keeps its address; it is asked again now and then in case the node rejoined elsewhere. */
const ADDRESS_TTL_MS = 30_000;
const PING_TIMEOUT_MS = 5_000;

/** What reaching the nodes needs: the manager's engine and registry (to run the agents), and the agents' TLS. */
export interface NodeAccessDeps {
  manager(): Promise<{ docker: Docker; registry: RegistryAccess }>;
  credentials(): Promise<AgentCredentials>;
  settings: AgentSettings;
  /** How long a node's agent may take to answer once asked for (a task starting on a node that just joined). */
  readyTimeoutMs: number;
}

interface Address {
  host: string;
  port: number;
}

/** A connection to the agent at `address`, routed to `target` (`docker`, or `tcp:<port>` on the node's loopback). */
function dialAgent(address: Address, credentials: AgentCredentials, target: string): TLSSocket {
  const socket = connect({
    ...address,
    ca: credentials.authority.certPem,
    cert: credentials.slipway.certPem,
    key: credentials.slipway.keyPem,
    // Every agent has the same certificate, for this name: the address is Swarm's, not a name in it.
    servername: AGENT_NAME,
  });
  // Written before the handshake ends: TLS holds it until then, and the agent reads it first.
  socket.write(`${target}\n`);
  return socket;
}

/** A node that does not answer at all would hold a ping until the system's TCP timeout. */
async function pingWithin(docker: Docker, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms / 1000} s`)), ms);
  });
  try {
    await Promise.race([docker.ping(), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** HTTP to a node's engine over its agent: dockerode's requests, each on a connection of its own. */
class AgentHttp extends Agent {
  constructor(
    private readonly address: Address,
    private readonly credentials: AgentCredentials,
  ) {
    super({ keepAlive: false });
  }

  override createConnection(): Duplex {
    return dialAgent(this.address, this.credentials, 'docker');
  }
}

/**
 * Slipway's way to the engine of each node and to ports on the node's loopback, through the agent the cluster
 * runs on every node (cluster-agent.ts). The agents are started (or brought up to date) the first time a node
 * is asked for.
 */
export class NodeAccess {
  private agents: Promise<void> | null = null;
  private readonly engines = new Map<string, Docker>();
  private readonly tunnels = new Map<string, Promise<Server>>();
  private readonly addresses = new Map<string, { address: Address; at: number }>();

  constructor(private readonly deps: NodeAccessDeps) {}

  /** The node's engine, once its agent answers. */
  async docker(nodeId: string): Promise<Docker> {
    const address = await this.addressOf(nodeId);
    const key = `${address.host}:${address.port}`;
    const known = this.engines.get(key);
    if (known) return known;
    const { default: Dockerode } = await import('dockerode');
    // docker-modem hands `agent` to http.request; its types do not list it.
    const options = { host: address.host, port: address.port, protocol: 'http', agent: new AgentHttp(address, await this.deps.credentials()) };
    const docker = new Dockerode(options as Docker.DockerOptions);
    const end = Date.now() + this.deps.readyTimeoutMs;
    for (;;) {
      try {
        await pingWithin(docker, PING_TIMEOUT_MS);
        break;
      } catch (error) {
        if (Date.now() > end) throw new Error(`the agent of node ${nodeId} at ${key} did not answer: ${(error as Error).message}`);
        await sleep(500);
      }
    }
    this.engines.set(key, docker);
    return docker;
  }

  /** A port on this server's loopback that leads to `port` on the node's loopback, for as long as Slipway runs. */
  async loopbackPort(nodeId: string, port: number): Promise<number> {
    const address = await this.addressOf(nodeId);
    const key = `${address.host}:${address.port}/${port}`;
    let tunnel = this.tunnels.get(key);
    if (!tunnel) {
      tunnel = this.openTunnel(address, port);
      this.tunnels.set(key, tunnel);
      tunnel.catch(() => this.tunnels.delete(key));
    }
    return ((await tunnel).address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    const servers = await Promise.allSettled(this.tunnels.values());
    this.tunnels.clear();
    for (const s of servers) if (s.status === 'fulfilled') s.value.close();
  }

  private async openTunnel(address: Address, port: number): Promise<Server> {
    const credentials = await this.deps.credentials();
    const server = createServer({ pauseOnConnect: true }, (client) => {
      const upstream = dialAgent(address, credentials, `tcp:${port}`);
      const end = () => {
        client.destroy();
        upstream.destroy();
      };
      client.on('error', end).on('close', end);
      upstream.on('error', end).on('close', end);
      client.pipe(upstream).pipe(client);
      client.resume();
    });
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
    server.unref();
    return server;
  }

  /** Where the node's agent listens: the node's address in the Swarm (asked again after a while), once the agents run. */
  private async addressOf(nodeId: string): Promise<Address> {
    const known = this.addresses.get(nodeId);
    if (known && Date.now() - known.at < ADDRESS_TTL_MS) return known.address;
    const address = await this.askAddressOf(nodeId);
    this.addresses.set(nodeId, { address, at: Date.now() });
    return address;
  }

  private async askAddressOf(nodeId: string): Promise<Address> {
    const { docker, registry } = await this.deps.manager();
    this.agents ??= this.deps.credentials().then((credentials) => ensureAgent(docker, registry, this.deps.settings, credentials));
    await this.agents.catch((error: unknown) => {
      this.agents = null;
      throw error;
    });
    const host = nodeAddressOf((await docker.getNode(nodeId).inspect()) as Parameters<typeof nodeAddressOf>[0]);
    if (!host || host === '0.0.0.0') throw new Error(`node ${nodeId} has no address in the Swarm`);
    return { host, port: this.deps.settings.port };
  }
}
