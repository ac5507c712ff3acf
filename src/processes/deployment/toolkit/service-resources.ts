import {
  effectiveResources,
  exitDescription,
  limitValues,
  type EffectiveResources,
  type ResourceSettings,
} from '../../../../commands/service/resources.js';
import type { ContainerState, ResourceLimits } from '../../../runtime/container-runtime.js';

export { outOfMemory } from '../../../../commands/service/resources.js';

/** The installation's `defaultResources` in force; absent: no defaults. */
export type DefaultResources = () => Promise<ResourceSettings>;

/** What one run of a service is given: its limits for the engine and their human form for messages. */
export interface RunResources {
  effective: EffectiveResources;
  limits: ResourceLimits;
}

/** A service's own limits over the installation's defaults (see `effectiveResources` for the precedence). */
export async function resourcesOfRun(own: ResourceSettings | null | undefined, defaults: DefaultResources | undefined): Promise<RunResources> {
  const effective = effectiveResources(own, defaults ? await defaults() : {});
  return { effective, limits: limitValues(effective) };
}

/**
 * How a service's container ended, for a deployment's reason or a health detail:
 * "was killed: out of memory (limit 512m)" or "exited with code 1".
 */
export const containerEnd = (state: Pick<ContainerState, 'exitCode' | 'oomKilled'>, resources: RunResources | EffectiveResources) =>
  exitDescription(state, 'effective' in resources ? resources.effective.memory : resources.memory);
