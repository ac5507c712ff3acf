/** A project's network on a single server: its services reach each other there by name. */
export const networkOf = (projectId: string) => `slipway-${projectId}`;
/** One overlay per project, attachable so the router joins it: the cluster's form of a project's network. */
export const overlayOf = (projectId: string) => `slipway-o-${projectId}`;
/** The container of one deployment of a service: the deployment id makes creating it idempotent. */
export const containerNameOf = (slug: string, deploymentId: string) => `slipway-${slug}-${deploymentId}`;
