import type { DestinationPolicy } from './destination-policy.js';

/** Where the Docker engine fetches an image from, when it is not Docker Hub. */
export interface RegistryDestination {
  host: string;
  /** The engine tries HTTPS and, for registries it deems insecure (loopback among them), plain HTTP. */
  ports: number[];
}

const DOCKER_HUB = new Set(['docker.io', 'index.docker.io', 'registry-1.docker.io']);

/**
 * The registry an image reference names (`127.0.0.1:5000/x:1`, `ghcr.io/owner/app`), or null for Docker Hub
 * (`nginx:1.27`, `library/redis`, `docker.io/…`). The first part is a registry when it has a dot or a port,
 * or is `localhost`, as the engine reads it.
 */
export function registryOf(reference: string): RegistryDestination | null {
  const slash = reference.indexOf('/');
  if (slash < 0) return null;
  const first = reference.slice(0, slash).toLowerCase();
  if (!first.includes('.') && !first.includes(':') && first !== 'localhost') return null;
  const match = /^(?<host>\[[0-9a-f:.]+\]|[^:]+)(?::(?<port>\d+))?$/.exec(first);
  if (!match?.groups) return { host: first, ports: [443, 80] };
  const host = match.groups.host!.replace(/^\[(.*)\]$/, '$1');
  if (DOCKER_HUB.has(host)) return null;
  return { host, ports: match.groups.port ? [Number(match.groups.port)] : [443, 80] };
}

/**
 * Refuses (ForbiddenDestinationError) an image whose registry the policy refuses. The engine resolves the
 * registry's name itself when it pulls, so between this check and the pull a name could change its answer.
 */
export async function vetRegistry(policy: DestinationPolicy, reference: string, field?: string): Promise<void> {
  const registry = registryOf(reference);
  if (!registry) return;
  for (const port of registry.ports) await policy.vet(registry.host, port, field);
}
