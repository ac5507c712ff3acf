import type { FailureContext } from '../explanation.js';
import { find } from './log-lines.js';

/** One shell word: as it is when it is safe, else single-quoted. */
export const sh = (arg: string) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`);

export const API_HEADERS = `-H "Authorization: Bearer $SLIPWAY_KEY"`;
/** Changes service settings through Slipway's API; SLIPWAY_URL, SLIPWAY_KEY and SERVICE_ID are the user's. */
export const patchService = (fields: Record<string, unknown>) =>
  `curl -s -XPATCH "$SLIPWAY_URL/api/services/$SERVICE_ID" ${API_HEADERS} -H 'content-type: application/json' -d ${sh(JSON.stringify(fields))}`;
export const setVariable = (key: string, value: string, service = 'SERVICE_ID') =>
  `curl -s -XPOST "$SLIPWAY_URL/api/services/$${service}/env" ${API_HEADERS} -H 'content-type: application/json' -d ${sh(JSON.stringify({ key, value }))}`;
/** The CLI's form of setVariable (src/cli/commands/projects.ts: `variables <service> set KEY=VALUE`). */
export const setVariableCli = (key: string, value: string) => `slipway variables "$SERVICE_ID" set ${sh(`${key}=${value}`)}`;
export const redeploy = `curl -s -XPOST "$SLIPWAY_URL/api/services/$SERVICE_ID/deployments" ${API_HEADERS}`;

export const isSource = (c: FailureContext) => c.service.kind !== 'image' && c.service.kind !== 'database' && c.service.repoUrl !== 'docker-image';
/** A service for `git push`: no upstream to clone, it deploys what was pushed to Slipway. */
export const isPushed = (c: FailureContext) => c.service.repoUrl === 'push';

/** How this deployment built its image: the deployment's record, else its log, else the service's setting. */
export function builtWith(c: FailureContext, lines: readonly string[]): 'dockerfile' | 'packbuilder' | 'image' | null {
  if (!isSource(c)) return 'image';
  const recorded = c.deployment.detectedBuildMethod;
  if (recorded === 'dockerfile' || recorded === 'packbuilder' || recorded === 'image') return recorded;
  if (find(lines, /^packbuilder: /)) return 'packbuilder';
  if (find(lines, /^Building with /)) return 'dockerfile';
  if (c.service.buildMethod === 'dockerfile' || c.service.buildMethod === 'packbuilder') return c.service.buildMethod;
  return null;
}

const rootIn = (c: FailureContext, dir: string) => sh(c.service.rootDir ? `${dir}/${c.service.rootDir.replace(/^\.?\/+/, '')}` : dir);

/**
 * The source this deployment built, at the service root: a fresh shallow clone of the upstream, or for a pushed
 * service (which has none) a worktree of the pushed commit in the user's own repository.
 */
export function checkout(c: FailureContext, lines: readonly string[] = []): string[] {
  const { repoUrl, branch } = c.service;
  if (isPushed(c)) {
    const commit = find(lines, /^Checking out pushed commit ([0-9a-f]{7,64})\b/)?.[1] ?? branch;
    return [`git worktree add ../slipway-check ${sh(commit)}`, `cd ${rootIn(c, '../slipway-check')}`];
  }
  return [`git clone --depth 1 --branch ${sh(branch)} ${sh(repoUrl)} app`, `cd ${rootIn(c, 'app')}`];
}

/** The start command of the Dockerfile the packbuilder wrote (logged indented), as a shell command. */
function packbuilderStart(lines: readonly string[]): string | null {
  const cmd = find(lines, /^ {2}CMD (\[.*\])\s*$/)?.[1];
  if (!cmd) return null;
  try {
    const argv: unknown = JSON.parse(cmd);
    if (!Array.isArray(argv) || !argv.every((a): a is string => typeof a === 'string')) return null;
    if (argv[0] === '/bin/sh' && argv[1] === '-c' && argv.length === 3) return argv[2]!.replace(/^exec /, '');
    return argv.map(sh).join(' ');
  } catch {
    return null;
  }
}

/** The packbuilder's RUN steps that make sense in a checkout (not those writing outside it, such as /venv). */
const packbuilderSteps = (lines: readonly string[]) =>
  lines.flatMap((l) => l.match(/^ {2}RUN (.+)$/)?.[1] ?? []).filter((step) => !/(^|\s)\/\w/.test(step));

/**
 * Builds and runs the app as Slipway would, with the same PORT: an image service runs its image, a Dockerfile
 * build is built with Docker, a packbuilder app runs its own steps and start command (it has no Dockerfile).
 */
export function runLocally(c: FailureContext, lines: readonly string[] = []): string[] {
  const port = c.service.internalPort;
  const method = builtWith(c, lines);
  if (c.service.kind === 'database') return [];
  if (method === 'image') return [`docker run --rm -e PORT=${port} -p ${port}:${port} ${sh(c.service.dockerImage ?? 'IMAGE')}`];
  if (method === 'packbuilder') {
    const start = c.service.startCommand ?? packbuilderStart(lines);
    const steps = packbuilderSteps(lines);
    const prepare = steps.length > 0 ? steps : [c.service.installCommand, c.service.buildCommand].filter((s): s is string => Boolean(s));
    return [...checkout(c, lines), ...prepare, ...(start ? [`PORT=${port} ${start}`] : [])];
  }
  return [...checkout(c, lines), 'docker build -t slipway-check .', `docker run --rm -e PORT=${port} -p ${port}:${port} slipway-check`];
}

/** Runs the build alone, as Slipway ran it, to time it or see it fail. */
export function buildLocally(c: FailureContext, lines: readonly string[] = []): string[] {
  if (!isSource(c)) return [];
  if (builtWith(c, lines) === 'packbuilder') return [...checkout(c, lines), ...packbuilderSteps(lines)];
  return [...checkout(c, lines), 'time docker build .'];
}
