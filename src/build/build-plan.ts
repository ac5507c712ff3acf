import { posix } from 'node:path';

export type BuildMethodSetting = 'auto' | 'dockerfile' | 'packbuilder';

export type BuildPlan = { method: 'dockerfile'; dockerfile: string } | { method: 'packbuilder' };

class BuildPlanError extends Error {}

/** A path relative to the service root that stays inside it; null when it would leave it. */
export function insideRoot(path: string): string | null {
  const normal = posix.normalize(path.replace(/^\.\/+/, ''));
  if (normal === '' || normal === '.' || normal.startsWith('../') || normal === '..' || posix.isAbsolute(normal)) return null;
  return normal;
}

/**
 * The spec's rules: `auto` builds the Dockerfile when the service root holds one, else the packbuilder;
 * `dockerfile` requires it; `packbuilder` ignores it. `PLATFORM_DOCKERFILE_PATH` overrides `dockerfilePath`.
 */
export function chooseBuild(
  settings: { buildMethod: BuildMethodSetting; dockerfilePath: string | null; dockerfilePathVariable: string | null },
  exists: (relativePath: string) => boolean,
): BuildPlan {
  if (settings.buildMethod === 'packbuilder') return { method: 'packbuilder' };
  const wanted = settings.dockerfilePathVariable || settings.dockerfilePath || 'Dockerfile';
  const dockerfile = insideRoot(wanted);
  if (dockerfile === null) throw new BuildPlanError(`the Dockerfile path ${JSON.stringify(wanted)} leaves the service root directory`);
  if (exists(dockerfile)) return { method: 'dockerfile', dockerfile };
  if (settings.buildMethod === 'dockerfile') {
    throw new BuildPlanError(`buildMethod is "dockerfile" but there is no ${dockerfile} in the service root directory`);
  }
  return { method: 'packbuilder' };
}
