/**
 * Since Engine API 1.46 (Docker 27.0) a service spec carries no-new-privileges
 * (`TaskTemplate.ContainerSpec.Privileges.NoNewPrivileges`); an older manager refuses nothing but drops it, and an
 * older node's executor ignores it.
 */
export const SERVICE_NO_NEW_PRIVILEGES = { api: [1, 46], engineMajor: 27 } as const;

const numbers = (version: string) => (/^(\d+)\.(\d+)/.exec(version.trim()) ?? []).slice(1).map(Number);

/** Whether an Engine API version (`1.41`) is at least `least`; false for what is not a version. */
export function apiAtLeast(version: string, least: readonly [number, number]): boolean {
  const [major, minor] = numbers(version);
  if (major === undefined || minor === undefined) return false;
  return major > least[0] || (major === least[0] && minor >= least[1]);
}

/** Whether a manager speaking `apiVersion` puts no-new-privileges into the service specs it is given. */
export const specCarriesNoNewPrivileges = (apiVersion: string) => apiAtLeast(apiVersion, SERVICE_NO_NEW_PRIVILEGES.api);

/** Whether a node's engine (`20.10.24+dfsg1`, `27.3.1`, as Swarm reports it) applies no-new-privileges from a spec. */
export function engineAppliesSpecNoNewPrivileges(engineVersion: string): boolean {
  const [major] = numbers(engineVersion);
  return major !== undefined && major >= SERVICE_NO_NEW_PRIVILEGES.engineMajor;
}
