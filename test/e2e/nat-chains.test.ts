import { createHash } from 'node:crypto';
import { execFileSync, spawnSync } from 'node:child_process';
import { realpathSync, rmSync } from 'node:fs';
import t from 'tap';
import { createProject, createService } from '../helpers/api-suite.js';
import { deploy, deployEnv, outcome } from '../helpers/deploy.js';
import { removeProjectLeftovers, requireDocker } from '../helpers/docker.js';
import { testWebService } from '../helpers/http-resources.js';
import { eventually, getVia } from '../helpers/net.js';
import { startTestServer } from '../helpers/test-server.js';

const nat = (...args: string[]) => execFileSync('iptables', ['-w', '5', '-t', 'nat', ...args], { encoding: 'utf8' });
const rules = () => nat('-S');
const chains = () => [...rules().matchAll(/^-N (\S+)$/gm)].map((m) => m[1]!);
const jumpsTo = (chain: string) => rules().split('\n').filter((l) => l.startsWith('-A ') && l.endsWith(`-j ${chain}`));
/** A chain with a jump to it from each of `from`, as an earlier Slipway would have left it. */
function plant(chain: string, from: string[]) {
  nat('-N', chain);
  for (const builtin of from) nat('-A', builtin, '-d', '127.9.9.9/32', '-p', 'tcp', '-j', chain);
}
function unplant(chain: string) {
  for (const rule of jumpsTo(chain)) nat('-D', ...rule.split(' ').slice(1));
  if (chains().includes(chain)) nat('-X', chain);
}

t.test('the NAT chain goes at stop, and a start removes what earlier instances of the same data directory left', { skip: await requireDocker() }, async (t) => {
  const { env, proxyPort } = await deployEnv();
  let s = await startTestServer(env);
  let running = true;
  const dataDir = s.dataDir;
  t.teardown(async () => {
    if (running) await s.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  if (!s.app.upstreams) {
    t.comment('iptables is not usable here (Slipway reloads Caddy instead)');
    return;
  }
  const p = await createProject(s, 'Nat');
  t.teardown(() => removeProjectLeftovers(p.id));
  const web = await createService(s, p.id, testWebService('web'));
  t.equal(outcome((await deploy(s, web.id)).done), 'succeeded');
  t.equal((await s.call('POST', `/api/services/${web.id}/domains`, { body: { hostname: 'www.nat.test' } })).status, 200);
  t.equal((await getVia(proxyPort, 'www.nat.test')).status, 200);

  // The chain names the data directory (its real path's hash), then the instance.
  const prefix = `SLIPWAY-${createHash('sha256').update(realpathSync(s.dataDir)).digest('hex').slice(0, 8).toUpperCase()}-`;
  const own = chains().filter((c) => c.startsWith(prefix));
  t.equal(own.length, 1, 'one chain of this data directory while it runs');
  const chain = own[0]!;
  t.ok(chain.length <= 28, 'a name iptables accepts');
  t.equal(jumpsTo(chain).length, 1);
  t.match(jumpsTo(chain)[0], /^-A OUTPUT -d 127\./);

  const instance = (await s.app.db.query<{ id: string }>('select id from sys_instance')).rows[0]!.id.replace(/-/g, '').toUpperCase();
  await s.stopKeepingData();
  running = false;
  t.notOk(chains().includes(chain), 'stopping removes the chain');
  t.same(jumpsTo(chain), [], 'and the jump to it');
  t.equal((await getVia(proxyPort, 'www.nat.test')).status, 200, 'Caddy, which outlives Slipway, still serves');

  // What earlier instances left: a crashed one of this directory, one from before the names held the
  // directory, and another installation's, which is not ours to touch.
  const crashed = `${prefix}DEADBEEF`;
  const legacy = `SLIPWAY-${instance.slice(0, 12)}`;
  const foreign = 'SLIPWAY-00000000-DEADBEEF';
  t.teardown(() => [crashed, legacy, foreign].forEach(unplant));
  plant(crashed, ['OUTPUT', 'PREROUTING']);
  plant(legacy, ['OUTPUT']);
  plant(foreign, ['OUTPUT']);

  s = await startTestServer(env, dataDir);
  running = true;
  const left = await eventually(async () => chains(), (names) => !names.includes(crashed) && !names.includes(legacy), 10_000);
  t.notOk(left.includes(crashed), 'a crashed instance’s chain of this directory is removed at start');
  t.same(jumpsTo(crashed), [], 'with its jumps, PREROUTING’s included');
  t.notOk(left.includes(legacy), 'and the chain under the name an earlier version gave this installation');
  t.same(jumpsTo(legacy), []);
  t.ok(left.includes(foreign), 'another installation’s chain stays');
  t.equal(jumpsTo(foreign).length, 1, 'with its jump');
  t.ok(left.includes(chain), 'the instance’s own chain is back');
  t.equal((await getVia(proxyPort, 'www.nat.test')).status, 200, 'served through it');

  await s.stopKeepingData();
  running = false;
  t.same(chains().filter((c) => c.startsWith(prefix)), [], 'nothing of this directory after the last stop');
  spawnSync('pkill', ['-f', `${dataDir}/caddy/bootstrap.json`]);
});
