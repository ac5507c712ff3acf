import { LABEL } from './container-runtime.js';

/**
 * The deployment an image of Slipway's was built for. Its labels are the same at every build of its service,
 * so the builder finds them in its cache (src/build/final-stage-labels.ts); the deployment is the version of
 * the tag Slipway gave it (`slipway/<service>:<deployment id>`), which no Dockerfile can set. An image
 * labelled by a last step of its own (its Dockerfile set labels of ours) carries it as a label too.
 */
export function deploymentOfImage(tags: readonly string[], labels: Readonly<Record<string, string>>): string | undefined {
  const labelled = labels[LABEL.deployment];
  if (labelled) return labelled;
  for (const tag of tags) {
    const version = /:([^:/]+)$/.exec(tag)?.[1];
    if (version && tag.startsWith('slipway/')) return version;
  }
  return undefined;
}

/** The labels an owned image is listed with: its own, and its deployment as a label. */
export function listedLabels(tags: readonly string[], labels: Readonly<Record<string, string>>): Record<string, string> {
  const deployment = deploymentOfImage(tags, labels);
  return { ...labels, ...(deployment ? { [LABEL.deployment]: deployment } : {}) };
}

/** Whether an image listed with `labels` has every wanted label (the deployment one included). */
export const hasLabels = (labels: Readonly<Record<string, string>>, wanted: Readonly<Record<string, string>>) =>
  Object.entries(wanted).every(([k, v]) => labels[k] === v);
