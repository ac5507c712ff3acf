import { existsSync } from 'node:fs';
import Docker from 'dockerode';
import { LABEL } from '../../src/runtime/container-runtime.js';
import { hasLabels, listedLabels } from '../../src/runtime/image-deployment.js';
import { required } from './requirements.js';

export const docker = new Docker({ socketPath: '/var/run/docker.sock' });

/** The images `npm test` builds locally (scripts/lib/docker.sh); packbuilder base images point at them. */
export const TEST_IMAGES = {
  node: 'slipway/runtime-node:bookworm',
  python: 'slipway/runtime-python:bookworm',
  go: 'slipway/runtime-go:bookworm',
  run: 'slipway/debian-base:bookworm',
  static: 'slipway/runtime-static:bookworm',
  web: 'slipway/test-web:bookworm',
};

export const PACK_ENV = {
  SLIPWAY_PACK_NODE_IMAGE: TEST_IMAGES.node,
  SLIPWAY_PACK_PYTHON_IMAGE: TEST_IMAGES.python,
  SLIPWAY_PACK_GO_IMAGE: TEST_IMAGES.go,
  SLIPWAY_PACK_RUN_IMAGE: TEST_IMAGES.run,
  SLIPWAY_PACK_STATIC_IMAGE: TEST_IMAGES.static,
};

/** Why Docker tests cannot run here, or false. */
export async function dockerUnavailable(): Promise<string | false> {
  const noEngine = 'no Docker engine answers on /var/run/docker.sock (npm test installs and starts one)';
  if (!existsSync('/var/run/docker.sock')) return noEngine;
  try {
    await docker.ping();
  } catch {
    return noEngine;
  }
  for (const image of Object.values(TEST_IMAGES)) {
    try {
      await docker.getImage(image).inspect();
    } catch {
      return `image ${image} is missing (npm test builds it)`;
    }
  }
  return false;
}

/** tap's `skip` for tests that need the engine and the test images; fatal under `npm test`. */
export const requireDocker = async () => required(await dockerUnavailable());

const managed = (labels: Record<string, string>) => ({ label: Object.entries({ ...labels, [LABEL.managed]: 'true' }).map(([k, v]) => `${k}=${v}`) });

export const containersOf = (labels: Record<string, string>) => docker.listContainers({ all: true, filters: managed(labels) });

/**
 * Tagged images carrying the labels, as Slipway lists them: an image's deployment is its tag's version
 * (src/runtime/image-deployment.ts); an untagged one is build cache.
 */
export async function imagesOf(labels: Record<string, string>) {
  const { [LABEL.deployment]: _deployment, ...engineLabels } = labels;
  const found = await docker.listImages({ filters: { ...managed(engineLabels), dangling: ['false'] } });
  return found
    .map((i) => ({ ...i, Labels: listedLabels((i.RepoTags ?? []).filter((t) => t !== '<none>:<none>'), i.Labels ?? {}) }))
    .filter((i) => hasLabels(i.Labels, labels));
}

/** Removes whatever a test's project left behind, even after a failed assertion. */
export async function removeProjectLeftovers(projectId: string) {
  for (const c of await containersOf({ [LABEL.project]: projectId })) await docker.getContainer(c.Id).remove({ force: true }).catch(() => undefined);
  // Build cache included: the cached label step of a service carries its labels.
  for (const i of await docker.listImages({ filters: managed({ [LABEL.project]: projectId }) })) await docker.getImage(i.Id).remove({ force: true }).catch(() => undefined);
  await docker.getNetwork(`slipway-${projectId}`).remove().catch(() => undefined);
  for (const v of (await docker.listVolumes({ filters: managed({ [LABEL.project]: projectId }) })).Volumes ?? []) {
    await docker.getVolume(v.Name).remove().catch(() => undefined);
  }
}

/** Removes the containers, networks and volumes a test server's installation created (its instance label). */
export async function removeInstanceLeftovers(instance: string) {
  const owned = managed({ [LABEL.instance]: instance });
  for (const c of await docker.listContainers({ all: true, filters: owned })) await docker.getContainer(c.Id).remove({ force: true }).catch(() => undefined);
  for (const n of await docker.listNetworks({ filters: owned })) await docker.getNetwork(n.Id).remove().catch(() => undefined);
  for (const v of (await docker.listVolumes({ filters: owned })).Volumes ?? []) await docker.getVolume(v.Name).remove().catch(() => undefined);
}
