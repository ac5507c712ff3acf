import { mkdirSync, rmSync } from 'node:fs';
import { join, posix } from 'node:path';
import type { DeploymentRequest } from '../../../../commands/deployment/aggregate.js';
import { deploymentSteps } from '../../../../commands/deployment/handlers.js';
import { reasonText } from '../../../../commands/shared/printable.js';
import type { ServiceRow } from '../../../../projections/service-queries.js';
import { chooseBuild, insideRoot } from '../../../build/build-plan.js';
import { Checkout, CheckoutRefusal } from '../../../build/checkout.js';
import { baseImagesOf } from '../../../build/dockerfile-bases.js';
import { cloneBranch } from '../../../build/git-source.js';
import { detect, type PackImages } from '../../../build/packbuilder/detect.js';
import { packDockerfile } from '../../../build/packbuilder/dockerfile.js';
import { checkoutPushed } from '../../../git/pushed-checkout.js';
import { vetRegistry } from '../../../outbound/image-registry.js';
import { privateDirectory } from '../../../private-files.js';
import { LABEL } from '../../../runtime/container-runtime.js';
import { message } from '../../error-message.js';
import type { DeploymentLog } from '../toolkit/deployment-log.js';
import type { Prepared } from '../toolkit/prepared.js';
import type { RunDeps } from '../toolkit/run-deps.js';
import { DeployFailure, step } from '../toolkit/run-step.js';

const imageTagOf = (row: ServiceRow, deploymentId: string) => `slipway/${row.slug}-${row.id.slice(0, 8)}:${deploymentId}`;

/** Any error of `fn` as the deployment's reason: a refused checkout path as it is (it names the path), others after `prefix`. */
function asDeployFailure<T>(prefix: string, fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (error instanceof CheckoutRefusal) throw new DeployFailure(error.message);
    throw new DeployFailure(`${prefix}${message(error)}`);
  }
}

/** The Dockerfile's text and how it came about: the repository's, read through the checkout, or the packbuilder's. */
function dockerfileFor(packImages: PackImages, p: Prepared, checkout: Checkout, rootDir: string, log: DeploymentLog) {
  const { row } = p;
  const inRoot = (path: string) => posix.join(rootDir, path);
  const plan = asDeployFailure('', () =>
    chooseBuild(
      { buildMethod: row.build_method as 'auto', dockerfilePath: row.dockerfile_path, dockerfilePathVariable: p.env.PLATFORM_DOCKERFILE_PATH ?? null },
      (path) => checkout.isFile(inRoot(path)),
    ),
  );
  if (plan.method === 'dockerfile') {
    log.system(`Building with ${plan.dockerfile} (build method ${row.build_method}); custom install, build and start commands do not apply`);
    const text = asDeployFailure('', () => checkout.read(inRoot(plan.dockerfile)));
    if (text === null) throw new DeployFailure(`${inRoot(plan.dockerfile)} disappeared from the checkout`);
    return { text, method: 'dockerfile' as const, path: inRoot(plan.dockerfile) };
  }
  const pack = asDeployFailure('packbuilder: ', () =>
    detect({
      files: checkout.filesIn(rootDir),
      installCommand: row.install_command,
      buildCommand: row.build_command,
      startCommand: row.start_command,
      runtimeMode: row.runtime_mode as 'web',
      internalPort: row.internal_port,
      images: packImages,
    }),
  );
  for (const note of pack.notes) log.system(`packbuilder: ${note}`);
  const text = packDockerfile(pack, packImages, row.internal_port);
  for (const line of text.split('\n')) log.system(`  ${line}`);
  return { text, method: 'packbuilder' as const };
}

type SourceRequest = Pick<DeploymentRequest, 'commitSha' | 'source'>;

/** Clones and builds a source service; returns the image tag and the builder that ran. */
export async function buildFromSource(deps: RunDeps, id: string, p: Prepared, source: SourceRequest, log: DeploymentLog, signal: AbortSignal) {
  const { row } = p;
  const { timeouts } = deps.settings;
  const dir = join(deps.settings.workDir, id);
  privateDirectory(deps.settings.workDir);
  rmSync(dir, { recursive: true, force: true });
  // Exclusively: a directory of this id that appeared meanwhile is not ours to build in.
  mkdirSync(dir, { mode: 0o700 });
  try {
    const commitSha = source.commitSha ?? null;
    const commit = await step('git clone', timeouts.cloneMs, signal, (s) => {
      const onLine = (l: string) => log.write(l, 'stderr');
      if (source.source === 'push') {
        if (!deps.pushedRepositories || !commitSha) throw new DeployFailure('a pushed deployment needs the pushed commit and the repository it was pushed to');
        log.system(`Checking out pushed commit ${commitSha}`);
        return checkoutPushed({ repository: deps.pushedRepositories.pathOf(row.id), commit: commitSha, dir: join(dir, 'src'), signal: s, onLine });
      }
      log.system(`Cloning ${row.repo_url} (branch ${row.branch}${commitSha ? `, commit ${commitSha}` : ''}, depth 1)`);
      return cloneBranch({ url: row.repo_url, branch: row.branch, commit: commitSha, token: p.gitToken, dir: join(dir, 'src'), signal: s, onLine, outbound: deps.outbound });
    });
    // The subject line is the repository's text: kept printable and short.
    const commitMessage = reasonText(commit.message).slice(0, 200);
    // Recorded while the build runs: the build does not need the event, and the run waits for it after.
    const resolved = deploymentSteps.progress(deps.cmd, id, { type: 'DeploymentCommitResolved', data: { commitSha: commit.sha, commitMessage } });
    resolved.catch(() => undefined);
    log.system(`Checked out commit ${commit.sha}`);

    const checkout = new Checkout(join(dir, 'src'));
    const rootDir = row.root_dir ? insideRoot(row.root_dir) : '.';
    const contextDir = rootDir === null ? null : asDeployFailure('', () => checkout.directory(rootDir));
    if (rootDir === null || contextDir === null) {
      throw new DeployFailure(`the root directory ${JSON.stringify(row.root_dir)} does not exist in the repository`);
    }
    const dockerfile = dockerfileFor((await deps.images()).pack, p, checkout, rootDir, log);
    if (dockerfile.method === 'dockerfile') {
      // The engine pulls the repository's base images itself: their registries are the key's destinations too.
      for (const base of baseImagesOf(dockerfile.text)) {
        await vetRegistry(deps.outbound, base).catch((error: unknown) => {
          throw new DeployFailure(`${dockerfile.path} uses the image ${base}: ${message(error)}`);
        });
      }
    }
    const tag = imageTagOf(row, id);
    const labels = { [LABEL.project]: row.project_id, [LABEL.service]: row.id, [LABEL.deployment]: id };
    await step('docker build', timeouts.buildMs, signal, (s) =>
      deps.runtime.build({ contextDir, dockerfileText: dockerfile.text, tag, labels }, (l) => log.write(l), s),
    );
    await resolved;
    return { tag, method: dockerfile.method, commitSha: commit.sha, commitMessage };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
