import { execFileSync } from 'node:child_process';
import { createProject, createService } from '../test/helpers/api-suite.js';
import { deployEnv, waitForDeployment } from '../test/helpers/deploy.js';
import { dockerUnavailable, removeProjectLeftovers } from '../test/helpers/docker.js';
import { startGitServer } from '../test/helpers/git-server.js';
import { startTestServer } from '../test/helpers/test-server.js';
import { app, drained, median, stepTimes, untilAnswers } from './deploy.js';
import { line } from './print.js';

const HAND_NETWORK = 'slipway-bench-hand-rollback';

/** The same image started by hand: `docker run`, then its first answer. */
async function byHand(imageId: string, version: string, network?: string): Promise<number> {
  const name = `slipway-bench-rollback-${Date.now()}`;
  const docker = (...args: string[]) => execFileSync('docker', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  const started = performance.now();
  docker('run', '-d', '--name', name, ...(network ? ['--network', network] : []), '-e', 'PORT=8080', '-p', '127.0.0.1::8080', imageId);
  const port = Number(docker('port', name, '8080/tcp').split(':').pop());
  await untilAnswers(port, 'localhost', version);
  const ms = performance.now() - started;
  docker('rm', '-f', name);
  return ms;
}

/** A rollback (POST → the old version answers on its domain) against `docker run` of the same image + first answer. */
export async function rollbackBenchmarks() {
  const skip = await dockerUnavailable();
  if (skip) {
    line('rollback', `skipped: ${skip}`);
    return;
  }
  const git = await startGitServer();
  const { env, proxyPort } = await deployEnv({ SLIPWAY_GIT_BASE_URL: git.baseUrl });
  const s = await startTestServer(env);
  const project = await createProject(s, 'Bench rollback');
  try {
    const svc = await createService(s, project.id, { name: 'bench', repoFullName: 'acme/bench', branch: 'main', internalPort: 8080 });
    await s.call('POST', `/api/services/${svc.id}/domains`, { body: { hostname: 'rollback.slipway.test' } });
    for (const version of ['one', 'two']) {
      git.push('acme/bench', app(version));
      await waitForDeployment(s, svc.id, (await s.call('POST', `/api/services/${svc.id}/deployments`)).body.deployment.id);
    }
    const releases = (await s.call('GET', `/api/services/${svc.id}/releases`)).body.releases as { id: string; version: number; imageId: string }[];
    const [two, one] = releases as [(typeof releases)[0], (typeof releases)[0]];
    await byHand(one.imageId, 'one');
    execFileSync('docker', ['network', 'create', HAND_NETWORK], { stdio: 'ignore' });
    await byHand(one.imageId, 'one', HAND_NETWORK);

    const slipway: number[] = [];
    const hand: number[] = [];
    const handOnNetwork: number[] = [];
    const steps: Record<string, number>[] = [];
    for (let i = 0; i < 5; i++) {
      hand.push(await byHand(one.imageId, 'one'));
      handOnNetwork.push(await byHand(one.imageId, 'one', HAND_NETWORK));
      for (const [target, body] of [[one, 'one'], [two, 'two']] as const) {
        await drained(svc.id);
        const posted = Date.now();
        const started = performance.now();
        const queued = await s.call('POST', `/api/services/${svc.id}/rollback`, { body: { releaseId: target.id } });
        if (queued.status !== 200) throw new Error(`rollback: ${queued.status} ${JSON.stringify(queued.body)}`);
        await untilAnswers(proxyPort, 'rollback.slipway.test', body);
        if (target === one) slipway.push(performance.now() - started);
        await waitForDeployment(s, svc.id, queued.body.deployment.id);
        if (target === one) steps.push(stepTimes(posted, (await s.call('GET', `/api/deployments/${queued.body.deployment.id}/logs`)).body.logs));
      }
    }
    const [a, b] = [median(slipway), median(hand)];
    line('rollback: POST → the old version answers on its domain (median of 5)', `${a.toFixed(0)} ms`);
    line('rollback: docker run of the same image + first answer by hand (median of 5)', `${b.toFixed(0)} ms`);
    line('rollback overhead / ratio', `${(a - b).toFixed(0)} ms / ${(a / b).toFixed(2)}`);
    const c = median(handOnNetwork);
    line('rollback: the same by hand on a user-defined network like Slipway’s (median of 5)', `${c.toFixed(0)} ms`);
    line('rollback overhead / ratio against that', `${(a - c).toFixed(0)} ms / ${(a / c).toFixed(2)}`);
    line('rollback steps, from its log (medians, ms)', Object.keys(steps[0] ?? {}).map((k) => `${k} ${median(steps.map((x) => x[k]!))}`).join(', '));
  } finally {
    await s.close();
    await git.close();
    await removeProjectLeftovers(project.id);
    try {
      execFileSync('docker', ['network', 'rm', HAND_NETWORK], { stdio: 'ignore' });
    } catch {
      // Not created, or already gone.
    }
  }
}
