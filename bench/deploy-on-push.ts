import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkSignature } from '../src/http/hooks/signatures.js';
import { createKey, createProject, createService } from '../test/helpers/api-suite.js';
import { deployEnv, waitForDeployment } from '../test/helpers/deploy.js';
import { dockerUnavailable, removeProjectLeftovers } from '../test/helpers/docker.js';
import { startGitServer } from '../test/helpers/git-server.js';
import { startReceiver } from '../test/helpers/notification-receivers.js';
import { destinationOf } from '../test/helpers/outbound.js';
import { startTestServer } from '../test/helpers/test-server.js';
import { deliver, githubPing } from '../test/helpers/webhooks.js';
import { app, median, untilAnswers } from './deploy.js';
import { line } from './print.js';

const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.95)]!;
const ms = (x: number) => `${x.toFixed(1)} ms`;

async function timed(n: number, run: () => Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    await run();
    times.push(performance.now() - started);
  }
  return times;
}

/** The hook route: a signed delivery and a forged one, end to end over HTTP; the signature check alone on 25 MB. */
async function hookBenchmarks() {
  const s = await startTestServer();
  try {
    const project = await createProject(s, 'Bench hooks');
    const svc = await createService(s, project.id, { name: 'hooked', repoFullName: 'acme/hooked', branch: 'main', internalPort: 8080, env: [] });
    const secret = (await s.call('PUT', `/api/services/${svc.id}/auto-deploy`, { body: { enabled: true, provider: 'github' } })).body.autoDeploy.secret as string;
    const path = `/api/hooks/${svc.id}/github`;
    let n = 0;
    await timed(20, () => deliver(s.url, path, githubPing(secret, `warm-${n++}`)));
    const signed = await timed(200, () => deliver(s.url, path, githubPing(secret, `ping-${n++}`)));
    line('hook: a signed delivery, verified and recorded (median / p95 of 200)', `${ms(median(signed))} / ${ms(p95(signed))}`);
    const forged = await timed(200, () => deliver(s.url, path, githubPing('not-the-secret', `forged-${n++}`)));
    line('hook: a forged delivery, refused and recorded (median / p95 of 200)', `${ms(median(forged))} / ${ms(p95(forged))}`);
    const body = Buffer.alloc(25 * 1024 * 1024, 'a');
    const header = (name: string) => (name.toLowerCase() === 'x-hub-signature-256' ? `sha256=${'0'.repeat(64)}` : '');
    const check = await timed(5, async () => checkSignature('github', header, secret, body));
    line('hook: the HMAC check alone over a 25 MB body (median of 5)', ms(median(check)));
  } finally {
    await s.close();
  }
}

/** A deployment that fails at once (no engine) → its notification arrives at a local receiver. */
async function notificationBenchmarks() {
  const receiver = await startReceiver();
  const s = await startTestServer({ SLIPWAY_ALLOW_DESTINATIONS: destinationOf(receiver.url) });
  try {
    const project = await createProject(s, 'Bench notifications');
    const svc = await createService(s, project.id, { name: 'failing', repoFullName: 'acme/failing', branch: 'main', internalPort: 8080, env: [] });
    await s.call('POST', '/api/notification-channels', { body: { name: 'bench', type: 'webhook', config: { url: `${receiver.url}/n` }, events: ['deployment.failed'] } });
    const latencies: number[] = [];
    for (let i = 0; i < 20; i++) {
      const id = (await s.call('POST', `/api/services/${svc.id}/deployments`)).body.deployment.id as string;
      for (;;) {
        const hit = receiver.received.find((r) => r.body.includes(id));
        if (hit) break;
        await new Promise((r) => setTimeout(r, 2));
      }
      const arrived = Date.now();
      const done = await waitForDeployment(s, svc.id, id);
      latencies.push(arrived - Date.parse(done.finishedAt));
    }
    line('notification: DeploymentFailed recorded → the receiver has it (median / p95 of 20)', `${latencies.length ? `${median(latencies)} ms / ${p95(latencies)} ms` : 'none'}`);
  } finally {
    await s.close();
    await receiver.close();
  }
}

const gitEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tmpdir(), GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1' };
const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=b', '-c', 'user.email=b@example.com', ...args], { cwd, env: gitEnv, stdio: 'ignore' });

function gitPush(cwd: string, remote: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', ['push', '-q', remote, 'HEAD:main'], { cwd, env: gitEnv, stdio: 'ignore' });
    child.on('close', (code) => (code === 0 ? resolve(0) : reject(new Error(`git push exited with ${code}`))));
  });
}

/** `git push` to Slipway → the pushed version answers on its domain, against POST /deployments of the same app from a Git host. */
async function pushBenchmarks() {
  const skip = await dockerUnavailable();
  if (skip) {
    line('git push → live', `skipped: ${skip}`);
    return;
  }
  const upstream = await startGitServer();
  const { env, proxyPort } = await deployEnv({ SLIPWAY_GIT_BASE_URL: upstream.baseUrl });
  const s = await startTestServer(env);
  const project = await createProject(s, 'Bench push');
  const work = mkdtempSync(join(tmpdir(), 'slipway-bench-push-'));
  try {
    const pushed = await createService(s, project.id, { name: 'pushed', repoFullName: 'acme/pushed', branch: 'main', internalPort: 8080 });
    const posted = await createService(s, project.id, { name: 'posted', repoFullName: 'acme/posted', branch: 'main', internalPort: 8080 });
    await s.call('POST', `/api/services/${pushed.id}/domains`, { body: { hostname: 'pushed.slipway.test' } });
    await s.call('POST', `/api/services/${posted.id}/domains`, { body: { hostname: 'posted.slipway.test' } });
    const key = (await createKey(s, 'write', [project.id])).secret;
    const remote = `${s.url.replace('://', `://bench:${key}@`)}/git/${pushed.id}.git`;
    git(work, 'init', '-q', '-b', 'main');
    const commit = (version: string) => {
      for (const [name, text] of Object.entries(app(version))) writeFileSync(join(work, name), text);
      git(work, 'add', '-A');
      git(work, 'commit', '-q', '-m', version);
    };
    commit('warm');
    await gitPush(work, remote);
    upstream.push('acme/posted', app('warm'));
    await waitForDeployment(s, posted.id, (await s.call('POST', `/api/services/${posted.id}/deployments`)).body.deployment.id);

    const push: number[] = [];
    const pushExit: number[] = [];
    const post: number[] = [];
    for (let i = 0; i < 5; i++) {
      const version = `p${i}-${Date.now()}`;
      commit(version);
      const started = performance.now();
      const exited = gitPush(work, remote).then(() => pushExit.push(performance.now() - started));
      await untilAnswers(proxyPort, 'pushed.slipway.test', version);
      push.push(performance.now() - started);
      await exited;

      upstream.push('acme/posted', app(version));
      const postedAt = performance.now();
      const id = (await s.call('POST', `/api/services/${posted.id}/deployments`)).body.deployment.id;
      await untilAnswers(proxyPort, 'posted.slipway.test', version);
      post.push(performance.now() - postedAt);
      await waitForDeployment(s, posted.id, id);
    }
    line('git push → the pushed version answers on its domain (median of 5)', `${median(push).toFixed(0)} ms`);
    line('git push → git exits, ref moved (median of 5)', `${median(pushExit).toFixed(0)} ms`);
    line('POST /deployments of the same app from a Git host → answers (median of 5)', `${median(post).toFixed(0)} ms`);
  } finally {
    await s.close();
    await upstream.close();
    await removeProjectLeftovers(project.id);
    rmSync(work, { recursive: true, force: true });
  }
}

export async function deployOnPushBenchmarks() {
  await hookBenchmarks();
  await notificationBenchmarks();
  await pushBenchmarks();
}
