import { chmod, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { createClickhouseBrowser } from '../../src/engines/clickhouse-browser.js';
import { createMysqlBrowser } from '../../src/engines/mysql-browser.js';
import { createPostgresBrowser } from '../../src/engines/postgres-browser.js';
import type { DatabaseBrowser, EngineEndpoint } from '../../src/engines/browser.js';
import { requireDocker } from '../helpers/docker.js';
import { requireDbImages, startEngineContainer } from '../helpers/engine-containers.js';

// The stand-in images must honour the parts of the official contracts that users lean on, beyond what Slipway
// itself sets: passwordless set-ups, secrets from files, and server arguments.

const limits = { timeoutMs: 5_000, maxRows: 10 };

/** A probe that succeeds once `open(endpoint)` answers a query; the browser is closed either way. */
const answers = (open: (endpoint: EngineEndpoint) => DatabaseBrowser) => async (endpoint: EngineEndpoint) => {
  const b = open(endpoint);
  try {
    await b.query('select 1', limits);
  } finally {
    await b.close();
  }
};

async function secretFile(value: string) {
  const dir = await mkdtemp(join(tmpdir(), 'slipway-secret-'));
  const file = join(dir, 'secret');
  await writeFile(file, value);
  // The servers read it after dropping root.
  await chmod(dir, 0o755);
  await chmod(file, 0o644);
  return file;
}

t.test('the database stand-in images honour the official contracts', { skip: (await requireDocker()) || (await requireDbImages()) }, async (t) => {
  const postgres = (endpoint: EngineEndpoint) => createPostgresBrowser(endpoint, 'postgres');

  t.test('postgres: POSTGRES_HOST_AUTH_METHOD=trust needs no password', async (t) => {
    const server = await startEngineContainer('postgres', answers(postgres), {
      password: '',
      contract: { env: { POSTGRES_HOST_AUTH_METHOD: 'trust' }, user: 'postgres', database: 'postgres' },
    });
    t.teardown(() => server.stop());
    t.pass('a passwordless server initialised and answers');
  });

  t.test('postgres: POSTGRES_PASSWORD_FILE sets the password', async (t) => {
    const file = await secretFile('from-a-file');
    const server = await startEngineContainer('postgres', answers(postgres), {
      password: 'from-a-file',
      contract: { env: { POSTGRES_USER: 'app', POSTGRES_PASSWORD_FILE: '/run/secrets/pw', POSTGRES_DB: 'appdb' } },
      binds: [`${file}:/run/secrets/pw:ro`],
    });
    t.teardown(() => server.stop());
    const wrong = postgres({ ...server.endpoint, password: 'other' });
    await t.rejects(wrong.ping(), 'another password is refused');
    await wrong.close();
  });

  t.test('mysql: MYSQL_ALLOW_EMPTY_PASSWORD gives root an empty password', async (t) => {
    const server = await startEngineContainer('mysql', answers(createMysqlBrowser), {
      password: '',
      contract: { env: { MYSQL_ALLOW_EMPTY_PASSWORD: 'yes', MYSQL_DATABASE: 'appdb' }, user: 'root', database: 'appdb' },
    });
    t.teardown(() => server.stop());
    t.pass('root connects without a password');
  });

  t.test('mysql: MYSQL_ROOT_PASSWORD_FILE and MYSQL_PASSWORD_FILE set the passwords', async (t) => {
    const root = await secretFile('root-from-file');
    const app = await secretFile('app-from-file');
    const server = await startEngineContainer('mysql', answers(createMysqlBrowser), {
      password: 'app-from-file',
      contract: { env: { MYSQL_ROOT_PASSWORD_FILE: '/run/secrets/root', MYSQL_DATABASE: 'appdb', MYSQL_USER: 'app', MYSQL_PASSWORD_FILE: '/run/secrets/app' } },
      binds: [`${root}:/run/secrets/root:ro`, `${app}:/run/secrets/app:ro`],
    });
    t.teardown(() => server.stop());
    const asRoot = createMysqlBrowser({ ...server.endpoint, user: 'root', password: 'root-from-file' });
    t.same((await asRoot.query('select current_user() as u', limits)).rows, [{ u: 'root@%' }]);
    await asRoot.close();
  });

  t.test('clickhouse: `--` arguments go to the server', async (t) => {
    const server = await startEngineContainer('columnar', answers(createClickhouseBrowser), {
      contract: { args: ['--', '--max_concurrent_queries=77'] },
    });
    t.teardown(() => server.stop());
    t.pass('the server started with the arguments and answers');
  });
});
