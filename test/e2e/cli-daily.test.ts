import { spawn } from 'node:child_process';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import t from 'tap';
import { cliArgs, root } from '../helpers/cli-process.js';
import { deployEnv } from '../helpers/deploy.js';
import { removeProjectLeftovers, requireDocker } from '../helpers/docker.js';
import { DB_IMAGE_ENV, requireDbImages } from '../helpers/engine-containers.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

// A database deployment, backups, restores and a CLI process per step.
t.setTimeout(360_000);

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** `slipway …` as a user runs it, without a terminal (stdin, stdout and stderr are pipes). */
function slipway(env: Record<string, string>, args: string[], input = ''): Promise<Run> {
  const child = spawn(process.execPath, [...cliArgs, ...args], { cwd: root, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  child.stdin!.end(input);
  return new Promise((resolve) => child.once('exit', (code) => resolve({ status: code, stdout, stderr })));
}

/** `slipway …` on a pseudo-terminal (util-linux `script`), answering `input` to what it asks. */
function onTerminal(env: Record<string, string>, args: string[], input: string): Promise<Run> {
  const quoted = [process.execPath, ...cliArgs, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const child = spawn('script', ['-qec', quoted, '/dev/null'], { cwd: root, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => {
    stdout += c;
    if (stdout.includes('[y/N]') && !child.stdin!.writableEnded) child.stdin!.end(input);
  });
  return new Promise((resolve) => child.once('exit', (code) => resolve({ status: code, stdout, stderr: '' })));
}

t.test('the CLI of daily work: databases, deployments, backups, settings and confirmations', { skip: (await requireDocker()) || (await requireDbImages()) }, async (t) => {
  const { env } = await deployEnv(DB_IMAGE_ENV);
  const s: TestServer = await startTestServer(env);
  t.teardown(() => s.close());
  const cliEnv = { XDG_CONFIG_HOME: mkdtempSync(join(tmpdir(), 'slipway-cli-config-')), SLIPWAY_URL: s.url, SLIPWAY_KEY: s.key };
  const cli = (...args: string[]) => slipway(cliEnv, args);

  const project = JSON.parse((await cli('projects', 'create', 'Daily', '--json')).stdout).project as { id: string; slug: string };
  t.teardown(() => removeProjectLeftovers(project.id));

  await t.test('services create --engine makes a database service, as the issue writes it', async (t) => {
    const created = await cli('services', 'create', 'db', '--project', 'daily', '--engine', 'postgres', '--name', 'main-db');
    t.equal(created.status, 0, created.stderr);
    t.match(created.stdout, /^created database daily\/main-db \(postgres, [0-9a-f-]+\); start it with: slipway deploy daily\/main-db/);
    const service = (await s.call('GET', `/api/projects/${project.id}`)).body.project.services[0];
    t.match(service, { name: 'main-db', repoFullName: 'database:postgres', repoUrl: 'database', internalPort: 5432, databasePublicEnabled: false });
    t.match((await cli('services', 'daily')).stdout, /\nmain-db\s+database:postgres\s+idle/);
    const both = await cli('services', 'create', 'x', '--project', 'daily', '--engine', 'redis', '--image', 'nginx:1.27');
    t.equal(both.status, 2, 'one source only');
    t.match(both.stderr, /give exactly one of --image, --repo, --git-url, --push or --engine/);
    const image = await cli('services', 'daily', 'create', 'broken', '--image', 'nginx:1.27');
    t.equal(image.status, 0, 'the positional form still works');
    const deployed = await cli('deploy', 'daily/main-db');
    t.equal(deployed.status, 0, deployed.stdout + deployed.stderr);
  });

  let url = '';
  await t.test('db connect --print: a URL that works from this machine; db connect runs psql with the arguments after --', async (t) => {
    const printed = await cli('db', 'connect', 'main-db', '--project', 'daily', '--print');
    t.equal(printed.status, 0, printed.stderr);
    url = printed.stdout.trim();
    t.match(url, /^postgresql:\/\/postgres:[^@]+@127\.0\.0\.1:\d+\/main_db\?sslmode=verify-full&sslrootcert=.+\.pem$/);
    t.equal(statSync(new URL(url).searchParams.get('sslrootcert')!).mode & 0o777, 0o600, 'the authority saved beside the credentials');
    const client = new Client({ connectionString: url });
    await client.connect();
    await client.query("create table items (id serial primary key, name text); insert into items (name) values ('kettle'), ('mug')");
    await client.end();
    const psql = await cli('db', 'connect', 'daily/main-db', '--', '-At', '-c', 'select count(*) from items');
    t.equal(psql.status, 0, psql.stderr);
    t.equal(psql.stdout, '2\n', 'psql ran on the database with the credentials');
    const failing = await cli('db', 'connect', 'daily/main-db', '--', '-c', 'select * from nothing_here');
    t.equal(failing.status, 1, 'psql’s exit code is the command’s');
    const notDb = await cli('db', 'connect', 'daily/broken', '--print');
    t.equal(notDb.status, 1);
    t.match(notDb.stderr, /broken is not a database service/);
  });

  await t.test('db tables, rows and query', async (t) => {
    t.match((await cli('db', 'tables', 'main-db')).stdout, /^TABLE\s+ROWS\npublic\.items\s+2\n/);
    const rows = await cli('db', 'rows', 'main-db', '--table', 'public.items', '--limit', '1', '--offset', '1');
    t.match(rows.stdout, /^id\s+name\n2\s+mug\n\(rows 2–2 of 2\)\n$/);
    const q = await cli('db', 'query', 'main-db', 'select name from items order by id');
    t.match(q.stdout, /^name\nkettle\nmug\n\(2 rows\)\n$/);
    t.match(JSON.parse((await cli('db', 'query', 'main-db', 'select 1 as one', '--json')).stdout), { rows: [{ one: 1 }], rowCount: 1 });
    t.equal((await cli('db', 'rows', 'main-db')).status, 2, '--table is needed');
  });

  await t.test('db backup waits for the backup; restore and backup deletion ask, and refuse without a terminal or --yes', async (t) => {
    const taken = await cli('db', 'backup', 'main-db', '--storage', 'disk');
    t.equal(taken.status, 0, taken.stderr);
    t.match(taken.stdout, /^backup [0-9a-f-]+ of main-db succeeded: [\d.]+ (B|KiB|MiB) on disk\n$/);
    const listed = JSON.parse((await cli('db', 'backups', 'main-db', '--json')).stdout).backups as { id: string; status: string }[];
    t.equal(listed.length, 1);
    t.equal(listed[0]!.status, 'succeeded');
    t.match((await cli('db', 'backups', 'main-db')).stdout, new RegExp(`^ID\\s+STATUS\\s+TRIGGER\\s+STORAGE\\s+SIZE\\s+CREATED\\s+ERROR\\n${listed[0]!.id}\\s+succeeded\\s+manual\\s+disk`));

    const client = new Client({ connectionString: url });
    await client.connect();
    t.teardown(() => client.end());
    await client.query('delete from items');
    const refused = await cli('db', 'restore', 'main-db', '--backup', listed[0]!.id);
    t.equal(refused.status, 2);
    t.match(refused.stderr, /^slipway: refusing without a terminal to ask: Restore main-db from backup [0-9a-f-]+ of .*replacing all of its current data\. Pass --yes to do it\n$/);
    t.equal((await client.query('select count(*)::int as n from items')).rows[0].n, 0, 'nothing was restored');
    await client.end();

    const restored = await cli('db', 'restore', 'main-db', '--backup', listed[0]!.id.slice(0, 8), '--yes');
    t.equal(restored.status, 0, restored.stderr);
    t.match(restored.stdout, /^restored main-db from backup [0-9a-f-]+ at /);
    t.equal((await cli('db', 'query', 'main-db', 'select count(*)::int as n from items', '--json')).stdout.includes('"n":2'), true, 'the rows are back');

    const keep = await cli('db', 'backups', 'main-db', 'delete', listed[0]!.id);
    t.equal(keep.status, 2);
    t.match(keep.stderr, /Pass --yes/);
    t.equal(JSON.parse((await cli('db', 'backups', 'main-db', '--json')).stdout).backups.length, 1, 'the backup is still there');
    const gone = await cli('db', 'backups', 'main-db', 'delete', listed[0]!.id, '--yes');
    t.equal(gone.status, 0, gone.stderr);
    t.equal(JSON.parse((await cli('db', 'backups', 'main-db', '--json')).stdout).backups.length, 0, 'deleted with --yes');
    t.match((await cli('db', 'imports', 'main-db')).stdout, /main-db has no imports/);
  });

  await t.test('deployments: list, show, explain; the release timeline; the audit log', async (t) => {
    const failed = await cli('deploy', 'broken');
    t.equal(failed.status, 1);
    const list = await cli('deployments', 'daily/broken');
    t.match(list.stdout, /^ID\s+KIND\s+TRIGGER\s+STATUS\s+COMMIT\s+CREATED\s+TOOK\s+REASON\n[0-9a-f-]+\s+deploy\s+requested\s+failed\s+.*pulling nginx:1\.27 failed/);
    const id = JSON.parse((await cli('deployments', 'list', 'daily/broken', '--json')).stdout).deployments[0].id as string;
    const shown = await cli('deployments', 'show', id);
    t.equal(shown.status, 0, shown.stderr);
    t.match(shown.stdout, /^deployment: [0-9a-f-]+\nservice:\s+daily\/broken\nkind:\s+deploy\nstatus:\s+failed\nreason:\s+pulling nginx:1\.27 failed/);
    t.match(shown.stdout, /\nlast 3 of 3 log lines:\n {2}Deployment [0-9a-f-]+ started\n {2}Pulling nginx:1\.27\n {2}Deployment failed: /);
    const explained = await cli('deployments', 'explain', id);
    t.equal(explained.status, 0, explained.stderr);
    t.match(explained.stdout, /^summary: .+\nlikely cause: .+\nsuggested fix: .+/);
    t.match(explained.stdout, /\(builtin/);
    const abort = await cli('deployments', 'abort', id);
    t.equal(abort.status, 1, 'a finished deployment cannot be aborted');
    t.match(abort.stderr, /HTTP 409/);

    const timeline = await cli('releases', 'main-db', '--project', 'daily', '--timeline');
    t.match(timeline.stdout, /^VERSION\s+KIND\s+STATUS\s+COMMIT\s+WHEN\s+DESCRIPTION\nv1 \*\s+deploy\s+succeeded/);
    t.ok(timeline.stdout.split('\n').every((l) => l.length <= 120), 'a narrow table');
    const former = await cli('history', 'main-db', '--project', 'daily');
    t.equal(former.stdout, timeline.stdout, 'the former name `history` does the same');
    t.match(former.stderr, /`history` is now `releases --timeline`/);
    const events = await cli('audit', '--project', 'daily', '--limit', '3');
    t.match(events.stdout, /^POSITION\s+RECORDED\s+ACTOR\s+TYPE\s+STREAM\s+CORRELATION\n/);
    t.equal(events.stdout.trim().split('\n').length, 4, 'a header and three events');
  });

  await t.test('settings: a table of name, value and source; set takes the API’s names, JSON values and KEY= for the default', async (t) => {
    const shown = await cli('settings');
    t.match(shown.stdout, /^NAME\s+VALUE\s+SOURCE\n/);
    t.match(shown.stdout, /\nrootDomain\s+\(none\)\s+environment\n/);
    const set = await cli('settings', 'set', 'rootDomain=apps.example.test', 'denyPrivateDestinations=true');
    t.equal(set.status, 0, set.stderr);
    t.match(set.stdout, /^rootDomain = apps\.example\.test \(settings\)\ndenyPrivateDestinations = true \(settings\)\n$/);
    const api = (await s.call('GET', '/api/settings')).body.settings;
    t.match(api, { rootDomain: 'apps.example.test', denyPrivateDestinations: true });
    t.match((await cli('settings', 'show')).stdout, /\nrootDomain\s+apps\.example\.test\s+settings\n/);
    const back = await cli('settings', 'set', 'rootDomain=', 'denyPrivateDestinations=');
    t.equal(back.status, 0, back.stderr);
    t.match(back.stdout, /rootDomain = \(none\) \(environment\)/);
    const bad = await cli('settings', 'set', 'noSuchSetting=1');
    t.equal(bad.status, 1, 'the server judges the keys');
    t.match(bad.stderr, /HTTP 400/);
  });

  await t.test('services delete and projects delete ask on a terminal and refuse without one unless --yes', async (t) => {
    const refused = await cli('services', 'delete', 'daily/broken');
    t.equal(refused.status, 2);
    t.match(refused.stderr, /refusing without a terminal to ask: Delete service broken .* Pass --yes/);
    const deleted = await cli('services', 'delete', 'broken', '--project', 'daily', '--yes');
    t.equal(deleted.status, 0, deleted.stderr);
    t.equal((await s.call('GET', `/api/projects/${project.id}`)).body.project.services.length, 1, 'only the database is left');

    const noTerminal = await cli('projects', 'delete', 'daily');
    t.equal(noTerminal.status, 2);
    t.match(noTerminal.stderr, /^slipway: refusing without a terminal to ask: Delete project daily with its 1 service\(s\) \(1 database\(s\)\) and their volumes\. Pass --yes to do it\n$/);
    t.equal((await s.call('GET', `/api/projects/${project.id}`)).status, 200, 'the project is still there');

    const declined = await onTerminal(cliEnv, ['projects', 'delete', 'daily'], 'n\n');
    t.match(declined.stdout, /Delete project daily with its 1 service\(s\) \(1 database\(s\)\) and their volumes\? \[y\/N\]/);
    t.not(declined.status, 0);
    t.equal((await s.call('GET', `/api/projects/${project.id}`)).status, 200, 'declined on the terminal: still there');
    const accepted = await onTerminal(cliEnv, ['projects', 'delete', 'daily'], 'y\n');
    t.equal(accepted.status, 0, accepted.stdout);
    t.match(accepted.stdout, /deleted project daily/);
    t.equal((await s.call('GET', `/api/projects/${project.id}`)).status, 404, 'yes on the terminal deletes it');
  });
});
