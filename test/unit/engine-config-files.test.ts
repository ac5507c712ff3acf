import t from 'tap';
import { enginePlan } from '../../src/engines/engine-plans.js';
import { postgresHba } from '../../src/engines/postgres-hba.js';
import { redisConfigValue } from '../../src/engines/redis-config.js';

const NETWORK = [{ subnet: '172.20.0.0/16', gateway: '172.20.0.1' }];

t.test('pg_hba: the gateway must use TLS before the project range may go without it', async (t) => {
  const lines = postgresHba({}, NETWORK).split('\n');
  const at = (line: string) => lines.indexOf(line);
  t.ok(at('local all all trust') >= 0, 'the socket, as the image leaves it');
  t.ok(at('hostssl all all 172.20.0.1/32 scram-sha-256') >= 0);
  t.ok(at('host all all 172.20.0.1/32 reject') > at('hostssl all all 172.20.0.1/32 scram-sha-256'), 'the gateway without TLS is rejected');
  t.ok(at('host all all 172.20.0.0/16 scram-sha-256') > at('host all all 172.20.0.1/32 reject'), 'only then the project range, TLS optional');
  t.equal(lines.filter(Boolean).at(-1), 'hostssl all all all scram-sha-256', 'everyone else needs TLS');
});

t.test('pg_hba: the image\'s method variable is honoured, never written when it is not a method name', async (t) => {
  t.match(postgresHba({ POSTGRES_HOST_AUTH_METHOD: 'md5' }, NETWORK), /^hostssl all all all md5$/m);
  const hostile = postgresHba({ POSTGRES_HOST_AUTH_METHOD: 'trust\nhost all all all trust' }, NETWORK);
  t.notMatch(hostile, /all all all trust/, 'a line break cannot add a line');
  t.match(hostile, /^hostssl all all all scram-sha-256$/m);
});

t.test('pg_hba: a range whose gateway is unknown gets no line without TLS', async (t) => {
  const hba = postgresHba({}, [{ subnet: 'fd00::/64', gateway: null }]);
  t.notMatch(hba, /fd00/);
  t.match(hba, /^hostssl all all all scram-sha-256$/m);
});

t.test('redis.conf values: quoted, with every byte that could end or bend them escaped', async (t) => {
  t.equal(redisConfigValue('plain-Pw_1'), '"plain-Pw_1"');
  t.equal(redisConfigValue('a "b" \\ c'), '"a \\x22b\\x22 \\x5c c"');
  t.equal(redisConfigValue('ö\nx'), '"\\xc3\\xb6\\x0ax"', 'non-ASCII and line breaks as bytes');
});

t.test('redis plan: the password is in the file only', async (t) => {
  const env = { REDIS_PASSWORD: 'pw-123', REDIS_URL: 'redis://default:pw-123@cache:6379', TZ: 'UTC' };
  const plan = enginePlan('redis', 'redis:7', env, { logicalReplication: false, tls: null, network: NETWORK });
  t.same(plan.env, { TZ: 'UTC' }, 'no variable that holds the password');
  t.notMatch(plan.command!.join(' '), /pw-123/);
  t.same(plan.files.map((f) => [f.path, f.mode, f.uid]), [['/etc/slipway-redis/redis.conf', 0o400, 999]]);
  t.match(plan.files[0]!.content, /^appendonly yes$/m);
  t.match(plan.files[0]!.content, /^requirepass "pw-123"$/m);
  const open = enginePlan('redis', 'redis:7', { REDIS_PASSWORD: '' }, { logicalReplication: false, tls: null, network: NETWORK });
  t.notMatch(open.files[0]!.content, /requirepass/, 'no password, no requirepass');
});
