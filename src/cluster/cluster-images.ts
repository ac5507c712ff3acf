import type Docker from 'dockerode';
import { localImageId } from './configured-container.js';

/** An image the manager's engine must have for `init`, where it comes from, and its local stand-in. */
export interface ClusterImage {
  /** What needs it, for the message: "The cluster's registry". */
  role: string;
  image: string;
  /** The environment variable that names it, and the image it names by default. */
  variable: string;
  defaultImage: string;
  /** The name `npm run images -- NAME` builds its stand-in under (scripts/lib/docker.sh), and that image. */
  standIn: string;
  standInImage: string;
}

export const REGISTRY_IMAGE = {
  role: "The cluster's registry",
  variable: 'SLIPWAY_CLUSTER_REGISTRY_IMAGE',
  defaultImage: 'registry:2',
  standIn: 'cluster-registry',
  standInImage: 'slipway/cluster-registry:bookworm',
} as const satisfies Omit<ClusterImage, 'image'>;

/** The engine has the image neither locally nor from its registry. */
export class ClusterImageUnavailable extends Error {}

/** The message that names the image, what the engine said, the setting that replaces it and its stand-in's command. */
export function unavailableMessage(need: ClusterImage, cause: string): string {
  return (
    `${need.role} needs the image ${need.image}, which is not on the manager's engine and could not be pulled (${cause}). ` +
    `Point ${need.variable} (default ${need.defaultImage}) at an image the engine has or can pull and restart Slipway; ` +
    `without a reachable registry, \`npm run images -- ${need.standIn}\` in Slipway's checkout builds the local stand-in ` +
    `(${need.variable}=${need.standInImage}). Nothing was changed: run init again once the image is there.`
  );
}

/**
 * Before `init` changes anything: the image's id on the manager's engine, pulled if need be. A pull that
 * fails or takes longer than `timeoutMs` becomes ClusterImageUnavailable.
 */
export async function requireClusterImage(docker: Docker, need: ClusterImage, timeoutMs: number): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the pull did not finish within ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
  });
  try {
    return await Promise.race([localImageId(docker, need.image), late]);
  } catch (error) {
    const said = error instanceof Error ? error.message : String(error);
    // dockerode prefixes the engine's own words with its HTTP status.
    const cause = said.replace(/^\(HTTP code \d+\)[^-]*- /, '').trim().replace(/\s+/g, ' ');
    throw new ClusterImageUnavailable(unavailableMessage(need, cause));
  } finally {
    clearTimeout(timer);
  }
}
