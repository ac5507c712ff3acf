import type Docker from 'dockerode';
import { execIn } from '../runtime/docker-exec.js';
import { REGISTRY_CACHE_OFF, REGISTRY_CONTAINER } from './registry.js';
import { deleteManifest, listTags, manifestDigest, type RegistryEndpoint } from './registry-api.js';
import type { RegistryLock } from './registry-lock.js';

const CONFIG = '/etc/docker/registry/config.yml';

/**
 * Deletes the manifests of a repository whose every tag may go (`mayGo`), and never `keep` (the digest the
 * Swarm service runs): a digest that a tag still kept points at stays, whatever else points at it. Returns
 * the tags that went.
 */
export async function deleteManifestsOf(
  registry: RegistryEndpoint,
  repository: string,
  mayGo: (tag: string) => Promise<boolean>,
  keep: ReadonlySet<string> = new Set(),
): Promise<string[]> {
  const byDigest = new Map<string, string[]>();
  for (const tag of await listTags(registry, repository)) {
    const digest = await manifestDigest(registry, repository, tag);
    if (digest) byDigest.set(digest, [...(byDigest.get(digest) ?? []), tag]);
  }
  const gone: string[] = [];
  for (const [digest, tags] of byDigest) {
    if (keep.has(digest) || !(await allMayGo(tags, mayGo))) continue;
    await deleteManifest(registry, repository, digest);
    gone.push(...tags);
  }
  return gone;
}

async function allMayGo(tags: string[], mayGo: (tag: string) => Promise<boolean>): Promise<boolean> {
  for (const tag of tags) if (!(await mayGo(tag))) return false;
  return true;
}

/**
 * The registry's garbage collection: deletes the layers no manifest names any longer. It runs in the registry
 * container (its own config and storage) while no push is under way. A registry started with its layer cache
 * on (by an earlier version) is left alone: after a collection its cache would hide the deleted layers from
 * the next push. Returns whether it collected.
 */
export async function collectGarbage(docker: Docker, lock: RegistryLock): Promise<boolean> {
  const env = (await docker.getContainer(REGISTRY_CONTAINER).inspect()).Config.Env ?? [];
  if (!REGISTRY_CACHE_OFF.every((setting) => env.includes(setting))) return false;
  await lock.collect(async () => {
    const result = await execIn(docker, REGISTRY_CONTAINER, { cmd: ['registry', 'garbage-collect', CONFIG] }, AbortSignal.timeout(300_000));
    if (result.exitCode !== 0) throw new Error(`the registry's garbage collection exited with ${result.exitCode}: ${result.stderr.slice(-500)}`);
  });
  return true;
}
