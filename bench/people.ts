import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { ALL_PROJECTORS } from '../projections/all.js';
import { ProjectionRunner } from '../projections/runner.js';
import { openPglite } from '../src/db/pglite-client.js';
import { createPostgresEventStore } from '../src/eventstore/postgres-event-store.js';
import { canSee } from '../src/http/auth.js';
import { PersonPrincipalCache } from '../src/http/principals.js';
import { newEvent } from '../test/helpers/new-event.js';
import { percentile } from './hook-load.js';
import { line } from './print.js';

type StartServer = (dataDir: string, env?: Record<string, string>) => Promise<{ child: ChildProcess; url: string }>;

const PASSWORD = 'a long enough password';

async function timed(fn: () => Promise<Response>): Promise<[number, number]> {
  const start = performance.now();
  const r = await fn();
  await r.arrayBuffer();
  return [performance.now() - start, r.status];
}

/** Password sign-in through HTTP: the right password, a wrong one and an unknown e-mail, interleaved. */
async function signIns(startServer: StartServer) {
  const dataDir = mkdtempSync(join(tmpdir(), 'slipway-bench-people-'));
  const { child, url } = await startServer(dataDir, { SLIPWAY_KEY_FAILURES_PER_MINUTE: '100000' });
  try {
    const key = readFileSync(join(dataDir, 'bootstrap-key'), 'utf8').trim();
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const post = (path: string, body: unknown, h: Record<string, string> = headers) => fetch(url + path, { method: 'POST', headers: h, body: JSON.stringify(body) });
    const n = 30;
    // One account per wrong guess: past three wrong guesses an account's answers wait on purpose.
    for (let i = 0; i < n; i++) {
      const { url: link } = (await (await post('/api/invitations', { email: `p${i}@bench.test`, role: 'member' })).json()) as { url: string };
      await post(`/api/invitations/${link.split('/').pop()}/accept`, { name: `P${i}`, password: PASSWORD }, { 'content-type': 'application/json' });
    }
    const json = { 'content-type': 'application/json' };
    const right: number[] = [];
    const wrong: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < n; i++) {
      right.push((await timed(() => post('/api/sessions', { email: `p${i}@bench.test`, password: PASSWORD }, json)))[0]);
      wrong.push((await timed(() => post('/api/sessions', { email: `p${i}@bench.test`, password: 'not the password' }, json)))[0]);
      unknown.push((await timed(() => post('/api/sessions', { email: `nobody${i}@bench.test`, password: 'not the password' }, json)))[0]);
    }
    for (const xs of [right, wrong, unknown]) xs.sort((a, b) => a - b);
    const f = (xs: number[]) => `${percentile(xs, 50).toFixed(0)} ms / ${percentile(xs, 99).toFixed(0)} ms`;
    line('password sign-in, right password: p50 / p99', f(right));
    line('password sign-in, wrong password: p50 / p99', f(wrong));
    line('password sign-in, unknown e-mail: p50 / p99', f(unknown));
    const gap = Math.abs(percentile(wrong, 50) - percentile(unknown, 50)) / percentile(wrong, 50);
    line('wrong password vs unknown e-mail, medians apart', `${(gap * 100).toFixed(1)} %`);
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** A person's rights per request with 1,000 people and 100 projects: resolved from the read models once, then cached. */
async function permissionChecks() {
  const dir = mkdtempSync(join(tmpdir(), 'slipway-bench-rights-'));
  const sql = await openPglite(join(dir, 'pg'));
  try {
    const store = await createPostgresEventStore(sql);
    const projects = Array.from({ length: 100 }, () => randomUUID());
    for (const id of projects) await store.append(`project-${id}`, [newEvent('ProjectCreated', { name: id, slug: id, description: '' }, 'bench')], 'no_stream');
    const users = Array.from({ length: 1000 }, () => randomUUID());
    for (const [i, id] of users.entries()) {
      await store.append(`user-${id}`, [newEvent('UserCreated', { role: 'member', sealedEmail: 'x', sealedName: 'x', invitationId: null }, 'bench')], 'no_stream');
      // Each member in ten projects.
      const mine = Array.from({ length: 10 }, (_, k) => projects[(i + k * 7) % projects.length]!);
      for (const p of mine) await store.append(`project-${p}`, [newEvent('ProjectMemberSet', { userId: id, role: 'deployer' }, 'bench')], 'any');
    }
    const runner = new ProjectionRunner(sql, store, ALL_PROJECTORS);
    await runner.start();
    await runner.caughtUp();
    const cache = new PersonPrincipalCache(sql, runner, async () => false);
    let start = performance.now();
    for (const id of users) await cache.find(id);
    line('a person’s rights, first request (2 reads), 1,000 people', `${((performance.now() - start) / users.length).toFixed(2)} ms each`);
    const rounds = 100_000;
    let seen = 0;
    start = performance.now();
    for (let i = 0; i < rounds; i++) {
      const principal = (await cache.find(users[i % users.length]!))!;
      if (canSee(principal, projects[i % projects.length]!)) seen++;
    }
    line('a person’s rights, later requests (cached) + the project check', `${(((performance.now() - start) / rounds) * 1000).toFixed(1)} µs each (${seen} of ${rounds} allowed)`);
    await runner.stop();
  } finally {
    await sql.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function peopleBenchmarks(startServer: StartServer) {
  await signIns(startServer);
  await permissionChecks();
}
