import t from 'tap';
import { requireCaddy } from '../helpers/caddy.js';
import { deploy, deployEnv, outcome } from '../helpers/deploy.js';
import { cliArgs, root, slipwayWithInput } from '../helpers/cli-process.js';
import { launchChromium, requireChromium, signedInPage } from '../helpers/browser.js';
import { docker, removeProjectLeftovers, requireDocker } from '../helpers/docker.js';
import { isRefusal, openExec, type ExecRefusal, type ExecSocket } from '../helpers/exec-client.js';
import { createKey, createProject, createService, testWebService } from '../helpers/http-resources.js';
import { waitFor } from '../helpers/net.js';
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { peopleSessions } from '../helpers/people-sessions.js';
import { startTestServer } from '../helpers/test-server.js';

const opened = (x: ExecSocket | ExecRefusal): ExecSocket => {
  if (isRefusal(x)) throw new Error(`the session was refused: ${x.status} ${JSON.stringify(x.body)}`);
  return x;
};
const refused = (x: ExecSocket | ExecRefusal): ExecRefusal => {
  if (!isRefusal(x)) {
    x.ws.terminate();
    throw new Error('the session was opened, not refused');
  }
  return x;
};
const q = (command: string, more = '') => `command=${encodeURIComponent(command)}${more}`;

t.test('a terminal into a running service', { skip: (await requireDocker()) || requireCaddy() }, async (t) => {
  const { env } = await deployEnv();
  const s = await startTestServer(env);
  t.teardown(() => s.close());
  const p = await createProject(s, 'Shells');
  t.teardown(() => removeProjectLeftovers(p.id));
  const other = await createProject(s, 'Elsewhere');
  const svc = await createService(s, p.id, testWebService('web'));
  const { done } = await deploy(s, svc.id);
  t.equal(outcome(done), 'succeeded');
  const container = `slipway-${svc.slug}-${done.id}`;
  const processesIn = async (): Promise<string[]> => (((await docker.getContainer(container).top()) as { Processes?: string[][] }).Processes ?? []).map((row) => row.at(-1) ?? '');

  await t.test('echo: its output, then its exit code, then a normal close', async (t) => {
    const session = opened(await openExec(s.url, svc.id, s.key, { query: q('echo hello-from-exec') }));
    const end = await session.closed;
    t.equal(session.stdout(), 'hello-from-exec\n');
    t.same(end, { code: 1000, exit: { type: 'exit', exitCode: 0 } });
  });

  await t.test('without a TTY, stdout and stderr stay apart and the exit code comes through; argv as repeated values', async (t) => {
    const session = opened(await openExec(s.url, svc.id, s.key, { query: q('echo out; echo err >&2; exit 3') }));
    const end = await session.closed;
    t.equal(session.stdout(), 'out\n');
    t.equal(session.stderr(), 'err\n');
    t.equal(end.exit?.exitCode, 3);
    const argv = opened(await openExec(s.url, svc.id, s.key, { query: ['printf', '%s|%s', 'a b', '$HOME'].map((w) => `command=${encodeURIComponent(w)}`).join('&') }));
    await argv.closed;
    t.equal(argv.stdout(), 'a b|$HOME', 'each value is one argument, no shell in between');
  });

  await t.test('stdin: binary frames in, an empty frame ends it', async (t) => {
    const session = opened(await openExec(s.url, svc.id, s.key, { query: q('wc -c') }));
    session.ws.send(Buffer.from('12345'), { binary: true });
    session.ws.send(Buffer.alloc(0), { binary: true });
    const end = await session.closed;
    t.equal(session.stdout().trim(), '5');
    t.equal(end.exit?.exitCode, 0);
  });

  await t.test('a TTY: resize, stty size prints the new size, exit with a code', async (t) => {
    const session = opened(await openExec(s.url, svc.id, s.key, { query: 'tty=1' }));
    session.ws.send(JSON.stringify({ type: 'resize', cols: 91, rows: 27 }));
    session.ws.send(Buffer.from('stty size\n'), { binary: true });
    await session.waitFor(/27 91\r\n/);
    session.ws.send(JSON.stringify({ type: 'resize', cols: 120, rows: 40 }));
    session.ws.send(Buffer.from('stty size; tty; exit 7\n'), { binary: true });
    const end = await session.closed;
    t.match(session.stdout(), /40 120\r\n\/dev\/pts\/\d+/, 'the second size, on a terminal');
    t.equal(end.exit?.exitCode, 7);
    t.equal(end.code, 1000);
  });

  await t.test('closing the socket kills the command and what it started', async (t) => {
    const session = opened(await openExec(s.url, svc.id, s.key, { query: q('sleep 4243 & sleep 4242') }));
    await waitFor('the command running', processesIn, (ps) => ps.some((p) => p.includes('sleep 4242')) && ps.some((p) => p.includes('sleep 4243')), 10_000);
    session.ws.close();
    const left = await waitFor('the command gone', processesIn, (ps) => !ps.some((p) => /sleep 424[23]/.test(p)), 10_000);
    t.notMatch(left.join('\n'), /sleep 424/, 'neither the command nor its child runs any more');
  });

  await t.test('refusals: HTTP answers with the error body, never a half-open socket', async (t) => {
    const read = await createKey(s, 'read', null);
    const elsewhere = await createKey(s, 'write', [other.id]);
    const r403 = refused(await openExec(s.url, svc.id, read.secret));
    t.equal(r403.status, 403, 'a read key');
    t.match(r403.body, { error: { code: 'forbidden' } });
    const r404 = refused(await openExec(s.url, svc.id, elsewhere.secret));
    t.equal(r404.status, 404, 'a key of another project');
    t.match(r404.body, { error: { code: 'not_found', message: 'service not found' } });
    t.equal(refused(await openExec(s.url, svc.id, null)).status, 401, 'no key');
    t.equal(refused(await openExec(s.url, svc.id, 'slw_nope')).status, 401, 'an unknown key');
    const bad = refused(await openExec(s.url, svc.id, s.key, { query: 'tty=yes' }));
    t.equal(bad.status, 400);
    t.match(bad.body, { error: { code: 'validation_failed', details: [{ path: 'tty' }] } });
    const plain = await s.call('GET', `/api/services/${svc.id}/exec`);
    t.equal(plain.status, 426, 'a plain GET is told to upgrade');
    t.match(plain.body, { error: { code: 'upgrade_required' } });
  });

  await t.test('a dashboard session needs its CSRF token and a same-origin Origin', async (t) => {
    const signIn = await s.call('POST', '/api/sessions', { key: null, body: { key: s.key } });
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
    const csrf = signIn.body.session.csrfToken as string;
    const origin = s.url;
    const noToken = refused(await openExec(s.url, svc.id, null, { headers: { cookie, origin } }));
    t.equal(noToken.status, 403, 'without the CSRF token');
    t.match(noToken.body, { error: { code: 'forbidden', message: /CSRF/ } });
    const wrong = refused(await openExec(s.url, svc.id, null, { headers: { cookie, origin }, protocols: ['slipway.exec.v1', `csrf.${csrf.slice(1)}x`] }));
    t.equal(wrong.status, 403, 'with a wrong token');
    const foreign = refused(await openExec(s.url, svc.id, null, { headers: { cookie, origin: 'https://evil.example' }, protocols: ['slipway.exec.v1', `csrf.${csrf}`] }));
    t.equal(foreign.status, 403, 'from another origin');
    t.match(foreign.body, { error: { message: /Origin/ } });
    const session = opened(await openExec(s.url, svc.id, null, { query: q('echo via-session'), headers: { cookie, origin }, protocols: ['slipway.exec.v1', `csrf.${csrf}`] }));
    await session.closed;
    t.equal(session.stdout(), 'via-session\n', 'with both, it opens');
    t.equal(session.ws.protocol, 'slipway.exec.v1', 'and the server chose the exec protocol, never the token');
  });

  await t.test('a viewer may not open a terminal; a deployer may', async (t) => {
    const people = peopleSessions(s);
    const viewer = await people.invited('viewer@example.com', 'member', [{ projectId: p.id, role: 'viewer' }]);
    const deployer = await people.invited('deployer@example.com', 'member', [{ projectId: p.id, role: 'deployer' }]);
    const as = (who: { cookie: string; csrf: string }, query?: string) =>
      openExec(s.url, svc.id, null, { ...(query ? { query } : {}), headers: { cookie: who.cookie, origin: s.url }, protocols: ['slipway.exec.v1', `csrf.${who.csrf}`] });
    t.equal(refused(await as(viewer)).status, 403, 'a viewer');
    const mine = opened(await as(deployer, q('echo deployer')));
    await mine.closed;
    t.equal(mine.stdout(), 'deployer\n');
  });

  await t.test('at most 3 open sessions per service: the 4th gets 429', async (t) => {
    const three = [];
    for (let i = 0; i < 3; i++) three.push(opened(await openExec(s.url, svc.id, s.key, { query: q('sleep 600') })));
    const fourth = refused(await openExec(s.url, svc.id, s.key, { query: q('echo no') }));
    t.equal(fourth.status, 429);
    t.match(fourth.body, { error: { code: 'too_many_sessions', message: /at most 3/ } });
    for (const session of three) session.ws.close();
    await Promise.all(three.map((x) => x.closed));
    const again = await waitFor(
      'a slot free again',
      async () => openExec(s.url, svc.id, s.key, { query: q('echo again') }),
      (x) => !isRefusal(x),
      5_000,
    );
    await opened(again).closed;
    t.equal(opened(again).stdout(), 'again\n', 'closed sessions give their slots back');
  });

  await t.test('each session is in the audit log: who, where, what, how long, how it ended; never its output', async (t) => {
    const events = await waitFor(
      'the sessions recorded',
      async () => ((await s.call('GET', `/api/projects/${p.id}/events?limit=1000&order=desc`)).body.events as Record<string, any>[]).filter((e) => e.type.startsWith('ExecSession')),
      (list) => list.filter((e) => e.type === 'ExecSessionEnded').length >= 12,
      10_000,
    );
    const started = events.filter((e) => e.type === 'ExecSessionStarted');
    const echo = started.find((e) => e.data.command.join(' ') === 'sh -c echo hello-from-exec')!;
    t.ok(echo, 'the echo session');
    t.match(echo, { actor: /^key:/, streamId: /^execsession-/, data: { serviceId: svc.id, projectId: p.id, containerName: container, tty: false } });
    const echoEnd = events.find((e) => e.type === 'ExecSessionEnded' && e.streamId === echo.streamId)!;
    t.match(echoEnd.data, { exitCode: 0, reason: 'exited', durationMs: Number });
    const ttyEnd = events.find((e) => e.type === 'ExecSessionEnded' && e.data.exitCode === 7);
    t.ok(ttyEnd, 'the TTY session ended with 7');
    const killed = started.find((e) => e.data.command.join(' ') === 'sh -c sleep 4243 & sleep 4242')!;
    t.match(events.find((e) => e.type === 'ExecSessionEnded' && e.streamId === killed.streamId)?.data, { exitCode: null, reason: 'closed' });
    t.ok(started.some((e) => e.actor.startsWith('user:')), 'a person’s session names the person');
    const all = JSON.stringify(events);
    for (const output of ['hello-from-exec\\n', 'via-session\\n', '27 91', '12345']) t.notOk(all.includes(output), `no output or input in the log (${output})`);
    const everything = await s.call('GET', `/api/events?type=ExecSessionStarted&limit=1000`);
    t.ok(everything.body.events.length >= started.length, 'and in the installation’s audit log');
  });

  await t.test('the dashboard’s terminal: type echo hi, see hi; light and dark', { skip: requireChromium() }, async (t) => {
    const browser = await launchChromium();
    t.teardown(() => browser.close());
    const page = await signedInPage(browser, s.url, s.key);
    const cspViolations: string[] = [];
    page.on('console', (m) => /Content Security Policy/i.test(m.text()) && cspViolations.push(`${m.text()} (${m.location().url})`));
    const xtermLoaded = async () => (await page.evaluate("performance.getEntriesByType('resource').some((r) => /terminal-session-.*\\.js$/.test(r.name))")) as boolean;
    await page.goto(`${s.url}/services/${svc.id}`, { waitUntil: 'domcontentloaded' });
    await page.waitForSelector('[role=tab]');
    t.ok(await page.$$eval('[role=tab]', (tabs) => tabs.some((tab) => tab.textContent === 'Terminal')), 'a Terminal tab for a key that may deploy');
    t.notOk(await xtermLoaded(), 'xterm.js is not loaded with the service screen');
    const shots = join(s.dataDir, '..', 'slipway-exec-shots');
    mkdirSync(shots, { recursive: true });
    for (const theme of ['light', 'dark'] as const) {
      await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: theme }]);
      await page.setViewport({ width: 1280, height: 900 });
      await page.goto(`${s.url}/services/${svc.id}?tab=terminal`, { waitUntil: 'domcontentloaded' });
      await page.waitForSelector('.terminal-status.terminal-open', { timeout: 20_000 });
      await page.waitForFunction("document.querySelector('.terminal-screen .xterm-rows')?.textContent.includes('#')", { timeout: 10_000 });
      await page.keyboard.type(`echo hi-${theme}`);
      await page.keyboard.press('Enter');
      await page.waitForFunction(`[...document.querySelectorAll('.terminal-screen .xterm-rows > div')].some((row) => row.textContent.trim() === 'hi-${theme}')`, { timeout: 10_000 });
      t.pass(`${theme}: typed echo hi-${theme}, and hi-${theme} came back on a line of its own`);
      const look = (await page.evaluate(`(() => {
        const screen = document.querySelector('.terminal-screen .xterm-screen').getBoundingClientRect();
        const row = document.querySelector('.terminal-screen .xterm-rows > div').getBoundingClientRect();
        return { width: screen.width, height: screen.height, rowHeight: row.height, background: getComputedStyle(document.querySelector('.terminal-screen .xterm-viewport')).backgroundColor };
      })()`)) as { width: number; height: number; rowHeight: number; background: string };
      t.ok(look.width > 600 && look.height > 300, `${theme}: the terminal fills its box (${look.width}×${look.height})`);
      t.ok(look.rowHeight > 10 && look.rowHeight < 30, `${theme}: rows are measured (${look.rowHeight}px)`);
      t.equal(look.background, 'rgb(11, 11, 14)', `${theme}: dark, like the live logs`);
      await page.screenshot({ path: join(shots, `terminal-${theme}.png`) });
    }
    t.ok(await xtermLoaded(), 'xterm.js came as its own chunk when the tab opened');
    t.same(cspViolations, [], 'nothing the page does is refused by its Content-Security-Policy');
    t.comment(`screenshots in ${shots}`);
  });

  await t.test('slipway exec: a command without a terminal, its streams and exit status; an interactive terminal', async (t) => {
    const env = { SLIPWAY_URL: s.url, SLIPWAY_KEY: s.key };
    const ran = await slipwayWithInput(env, ['exec', `${p.slug}/${svc.slug}`, '--', 'sh', '-c', 'echo to-stdout; echo to-stderr >&2; exit 4']);
    t.equal(ran.status, 4, 'the exit status is the command’s');
    t.equal(ran.stdout, 'to-stdout\n');
    t.equal(ran.stderr, 'to-stderr\n');
    const listed = await slipwayWithInput(env, ['exec', `${p.slug}/${svc.slug}`, '--', 'ls', '/']);
    t.equal(listed.status, 0);
    t.match(listed.stdout, /^bin$/m, 'argv as given');
    const piped = await slipwayWithInput(env, ['exec', `${p.slug}/${svc.slug}`, '--', 'wc', '-l'], 'one\ntwo\nthree\n');
    t.equal(piped.stdout.trim(), '3', 'its stdin is the command’s, and its end is the command’s');
    const read = await createKey(s, 'read', null);
    const refusedCli = await slipwayWithInput({ ...env, SLIPWAY_KEY: read.secret }, ['exec', `${p.slug}/${svc.slug}`, '--', 'true']);
    t.equal(refusedCli.status, 1);
    t.match(refusedCli.stderr, /read-only \(forbidden, HTTP 403\)/, 'a refusal in the API’s words');

    // A terminal of its own (script(1) gives it one): raw mode, the shell's prompt, the exit code of `exit`.
    const command = [process.execPath, ...cliArgs, 'exec', `${p.slug}/${svc.slug}`].map((w) => `'${w}'`).join(' ');
    const child = spawn('script', ['-q', '-e', '-c', command, '/dev/null'], { cwd: root, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (out += `[stderr] ${c}`));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    t.teardown(() => void (child.exitCode === null && child.kill('SIGKILL')));
    // The CLI runs through tsx when dist is not a build of these sources: slower to start on a loaded machine.
    await waitFor('the remote prompt', async () => `${out} [script: ${child.exitCode ?? 'running'}]`, (o) => o.includes('# '), 45_000);
    child.stdin.end('tty; echo "in-$((6*7))"; exit 6\n');
    t.equal(await exited, 6, 'the interactive session exits with the shell’s code');
    t.match(out, /\/dev\/pts\/\d+/, 'the shell runs on a terminal');
    t.match(out, /in-42/, 'and its output comes back');
  });
});
