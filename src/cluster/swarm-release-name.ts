/**
 * A release that runs as a Swarm service records `swarm:<service name>` where a single server records its
 * container's name: whatever reads the current container (health, logs, sweeps, routing) tells the two apart.
 */
const PREFIX = 'swarm:';

export const swarmReleaseName = (swarmService: string) => `${PREFIX}${swarmService}`;

/** The Swarm service a release runs as, or null for a plain container. */
export const swarmServiceOf = (currentContainer: string | null | undefined) =>
  currentContainer?.startsWith(PREFIX) ? currentContainer.slice(PREFIX.length) : null;
