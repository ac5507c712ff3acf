import { vetRegistry } from '../../../outbound/image-registry.js';
import type { DeploymentLog } from '../toolkit/deployment-log.js';
import { DeployFailure, step } from '../toolkit/run-step.js';
import { message } from '../../error-message.js';
import type { RunDeps } from '../toolkit/run-deps.js';

export interface ResolvedImage {
  /** `sha256:…`: what runs, whatever the tag points at later. */
  imageId: string;
  /** `<repository>@sha256:…` as the registry knows it; null for an image only present here. */
  digest: string | null;
}

/** The repository part of a reference: without its digest and its tag (a colon after the last slash). */
export function repositoryOf(reference: string): string {
  const name = reference.split('@')[0]!;
  const colon = name.lastIndexOf(':');
  return colon > name.lastIndexOf('/') ? name.slice(0, colon) : name;
}

/** The registry digest of the reference's own repository, else any the image has. */
export function digestOf(reference: string, repoDigests: readonly string[]): string | null {
  const repository = repositoryOf(reference);
  const hub = (r: string) => r.replace(/^(docker\.io\/)?(library\/)?/, '');
  return repoDigests.find((d) => hub(d.split('@')[0]!) === hub(repository)) ?? repoDigests[0] ?? null;
}

/** Pulls a key's image through the outbound policy; the reason it could not, or null once pulled. */
async function pullAgain(deps: RunDeps, reference: string, log: DeploymentLog, signal: AbortSignal): Promise<string | null> {
  try {
    await vetRegistry(deps.outbound, reference);
  } catch (error) {
    return `pulling ${reference} refused: ${message(error)}`;
  }
  log.system(`Pulling ${reference}`);
  try {
    await step(`pulling ${reference}`, deps.settings.timeouts.pullMs, signal, (s) => deps.runtime.pull(reference, (l) => log.write(l), s));
    return null;
  } catch (error) {
    if (signal.aborted) throw error;
    return message(error);
  }
}

/**
 * The image of an image service, resolved again at each deploy. One that came from a registry has its tag
 * pulled, so a moved `:latest` is followed; when that pull is refused or fails, the copy present here runs as
 * it is and the log says so. One only present here (built or loaded on this host: no registry digest) and a
 * reference pinned by digest that is present run without a pull: no registry has anything newer to give.
 */
export async function resolveImage(deps: RunDeps, reference: string, projectId: string, log: DeploymentLog, signal: AbortSignal): Promise<ResolvedImage> {
  const local = await deps.runtime.imageInfo(reference);
  // Another project's build holds its code and what its build steps baked in: not for this project to run.
  if (local?.project && local.project !== projectId) throw new DeployFailure(`the image ${reference} was built here by another project's deployment; an image service runs an image from a registry or one built outside Slipway`);
  const asIs = local !== null && (reference.includes('@sha256:') || local.repoDigests.length === 0);
  const failure = asIs ? null : await pullAgain(deps, reference, log, signal);
  const info = asIs ? local : await deps.runtime.imageInfo(reference);
  if (!info) throw new DeployFailure(failure ?? `the image ${reference} is not present after its pull`);
  if (failure) log.system(`Could not pull ${reference} (${failure}); using the image present locally`);
  const resolved = { imageId: info.id, digest: digestOf(reference, info.repoDigests) };
  log.system(`Image ${reference} is ${resolved.imageId}${resolved.digest ? ` (${resolved.digest})` : asIs ? ' (present on this machine, not pulled)' : ''}`);
  return resolved;
}
