import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { LABEL } from '../../src/runtime/container-runtime.js';
import { requireCaddy } from '../helpers/caddy.js';
import { deployEnv, deploymentOf, logLines, outcome, queueDeployment, steadyLoad, waitForDeployment } from '../helpers/deploy.js';
import { containersOf, docker, imagesOf, requireDocker } from '../helpers/docker.js';
import { startGitServer } from '../helpers/git-server.js';
import { answerOf, installation } from '../helpers/slipway-process.js';
import { addDomain, createService } from '../helpers/http-resources.js';
import { versionedApp } from '../helpers/apps.js';
import { waitFor } from '../helpers/net.js';

const TOKEN = 'ghp_crashTokenLeftOnDisk77';
const V1 = { status: 200, body: 'built v1' };
const REASON = 'Slipway stopped while this deployment was running; its build and container were discarded. Deploy again.';

/** Processes (not zombies) whose command line mentions `text`, found without Slipway's help. */
function processesMentioning(text: string): number[] {
  const read = (path: string) => {
    try {
      return readFileSync(path, 'utf8');
    } catch {
      return '';
    }
  };
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => read(`/proc/${pid}/cmdline`).includes(text) && !/^\d+ \(.*\) Z/.test(read(`/proc/${pid}/stat`)))
    .map(Number);
}

/** Build containers the engine runs for a Dockerfile step that printed `marker`. */
const buildContainersOf = async (marker: string) => (await docker.listContainers({ all: true })).filter((c) => c.Command.includes(marker));

t.test('SIGKILL while one deployment clones, one builds and one starts, with a release serving', { skip: (await requireDocker()) || requireCaddy() }, async (t) => {
  const git = await startGitServer({ 'acme/cloned': TOKEN });
  t.teardown(() => git.close());
  const marker = `crash-build-${process.pid}-${Date.now()}`;
  git.push('acme/cloned', versionedApp('cloned v1'));
  git.push('acme/built', versionedApp('built v1'));
  // The line the app prints is not in the Dockerfile, so seeing it in the log means the container runs.
  git.push('acme/started', versionedApp('started v1', { command: ['sh', '-c', 'echo listening-in-$((60 * 2))-seconds; sleep 120'] }));
  const { env, proxyPort } = await deployEnv({ SLIPWAY_GIT_BASE_URL: git.baseUrl, SLIPWAY_DEPLOY_CONCURRENCY: '3', SLIPWAY_START_TIMEOUT: '300' });
  const slipway = installation(t, env);
  let s = await slipway.start();
  const projectId = await slipway.createProject('Crash mid-run');
  const service = (name: string) =>
    createService(s, projectId, { name, repoFullName: `acme/${name}`, branch: 'main', internalPort: 8080, ...(name === 'cloned' ? { gitToken: TOKEN } : {}) });
  const [cloned, built, started] = [await service('cloned'), await service('built'), await service('started')];
  await addDomain(s, built.id, 'built.crash.test');

  const first = await waitForDeployment(s, built.id, (await queueDeployment(s, built.id)).id);
  t.equal(outcome(first), 'succeeded', 'the release that must keep serving is deployed');
  t.same(await answerOf(proxyPort, 'built.crash.test', V1), V1, 'it answers on its domain');

  git.push('acme/built', versionedApp('built v2', { buildStep: `RUN echo ${marker} && sleep 120` }));
  const releaseClone = git.hold('acme/cloned');
  const inClone = (await queueDeployment(s, cloned.id)).id;
  const inBuild = (await queueDeployment(s, built.id)).id;
  const inStart = (await queueDeployment(s, started.id)).id;
  await waitFor('the clone to hang on the held repository', async () => git.held('acme/cloned') > 0, Boolean, 60_000);
  await waitFor('the build step to print its marker', async () => (await logLines(s, inBuild)).some((l) => l.includes(marker)), Boolean, 60_000);
  await waitFor('the started container to print its line', async () => (await logLines(s, inStart)).includes('listening-in-120-seconds'), Boolean, 60_000);

  const builds = join(slipway.dataDir, 'builds');
  const cloneUrl = `${git.baseUrl}/acme/cloned`;
  const gitProcesses = processesMentioning(cloneUrl);
  const before = {
    statuses: [(await deploymentOf(s, cloned.id, inClone))?.status, (await deploymentOf(s, built.id, inBuild))?.status, (await deploymentOf(s, started.id, inStart))?.status],
    cloneDir: existsSync(join(builds, inClone)),
    // The clone reads the token from a file in its build directory.
    credentials: existsSync(join(builds, inClone, 'git-credentials.config')),
    buildDir: existsSync(join(builds, inBuild)),
    // Only Slipway's user may enter them or read the token.
    modes: [builds, join(builds, inClone), join(builds, inClone, 'git-credentials.config')].map((path) => (statSync(path).mode & 0o777).toString(8)),
    buildContainers: (await buildContainersOf(marker)).length,
    startContainers: (await containersOf({ [LABEL.deployment]: inStart })).length,
  };
  t.same(
    before,
    { statuses: ['running', 'running', 'running'], cloneDir: true, credentials: true, buildDir: true, modes: ['700', '700', '600'], buildContainers: 1, startContainers: 1 },
    'when Slipway dies: three runs, a checkout with its Git credentials, a build and a container',
  );
  t.not(gitProcesses.length, 0, `the clone's git processes run (${gitProcesses.join(', ')})`);

  // Requests without pause to the release, through the domain and the host port, across the kill and the restart.
  const viaDomain = steadyLoad(proxyPort, 'built.crash.test');
  const viaHostPort = steadyLoad(built.hostPort, 'localhost');
  const loads = [viaDomain, viaHostPort];
  await waitFor('requests before the kill', async () => loads.every((l) => l.results.length >= 10), Boolean, 60_000);
  const atKill = loads.map((l) => l.results.length);
  await slipway.crash();
  s = await slipway.start();
  const atRestart = loads.map((l) => l.results.length);
  await waitFor('requests after the restart', async () => loads.every((l, i) => l.results.length >= atRestart[i]! + 20), Boolean, 60_000);
  const [domainResults, hostPortResults] = [await viaDomain.stop(), await viaHostPort.stop()];

  await t.test('a kill during the clone: failed with the reason, checkout and git processes gone', async (t) => {
    const d = await deploymentOf(s, cloned.id, inClone);
    t.match(d, { status: 'failed', reason: REASON, finishedAt: String }, 'failed with the reason');
    t.equal((await logLines(s, inClone)).at(-1), REASON, 'the last line of its log says so');
    t.equal(existsSync(join(builds, inClone)), false, 'its build directory is gone, the Git credentials with it');
    // Orphaned by the kill, git would wait for the held answer for as long as the server holds it.
    t.same(gitProcesses.filter((pid) => processesMentioning(cloneUrl).includes(pid)), [], 'the orphaned git processes were stopped at the restart');
  });

  await t.test('a kill during the build: failed with the reason, the build and what it made gone', async (t) => {
    const d = await deploymentOf(s, built.id, inBuild);
    t.match(d, { status: 'failed', reason: REASON, finishedAt: String }, 'failed with the reason');
    t.equal((await logLines(s, inBuild)).at(-1), REASON, 'the last line of its log says so');
    t.equal(existsSync(join(builds, inBuild)), false, 'its build directory is gone');
    t.same(await imagesOf({ [LABEL.deployment]: inBuild }), [], 'no image of it');
    // The engine cancels a build whose client went away and removes its step's container.
    const stray = await waitFor('the interrupted build step to go', () => buildContainersOf(marker), (list) => list.length === 0, 30_000).catch(
      () => buildContainersOf(marker),
    );
    t.same(stray, [], 'no build container is left');
    const overview = (await s.call('GET', `/api/services/${built.id}/overview`)).body.service;
    t.match(overview, { status: 'active', reachable: true }, 'the previous release is still the current one');
  });

  await t.test('a kill during the start: failed with the reason, its container and image gone', async (t) => {
    const d = await deploymentOf(s, started.id, inStart);
    t.match(d, { status: 'failed', reason: REASON, finishedAt: String }, 'failed with the reason');
    t.equal((await logLines(s, inStart)).at(-1), REASON, 'the last line of its log says so');
    t.same(await containersOf({ [LABEL.deployment]: inStart }), [], 'no container of it');
    t.same(await imagesOf({ [LABEL.deployment]: inStart }), [], 'no image of it');
  });

  await t.test('the release serves through the kill and the restart', async (t) => {
    for (const [name, results, i] of [['domain', domainResults, 0], ['host port', hostPortResults, 1]] as const) {
      t.same(results.filter((r) => r.status !== 200 || r.body !== 'built v1'), [], `${name}: ${results.length} requests, every one answered by the release`);
      t.ok(atRestart[i]! - atKill[i]! >= 10, `${name}: ${atRestart[i]! - atKill[i]!} of them while Slipway was down or starting`);
    }
  });

  await t.test('after the restart every service deploys again', async (t) => {
    releaseClone();
    git.push('acme/cloned', versionedApp('cloned v2'));
    git.push('acme/built', versionedApp('built v3'));
    git.push('acme/started', versionedApp('started v2'));
    const again = [(await queueDeployment(s, cloned.id)).id, (await queueDeployment(s, built.id)).id, (await queueDeployment(s, started.id)).id];
    const ends = [await waitForDeployment(s, cloned.id, again[0]!), await waitForDeployment(s, built.id, again[1]!), await waitForDeployment(s, started.id, again[2]!)];
    t.same(ends.map(outcome), ['succeeded', 'succeeded', 'succeeded'], 'new deployments succeed');
    for (const [port, host, body] of [[cloned.hostPort, 'localhost', 'cloned v2'], [started.hostPort, 'localhost', 'started v2'], [proxyPort, 'built.crash.test', 'built v3']] as const) {
      t.same(await answerOf(port, host, { status: 200, body }), { status: 200, body }, `${host}:${port} answers the new version`);
    }
  });
});
