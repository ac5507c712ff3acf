import { spawnSync } from 'node:child_process';
import t from 'tap';
import { cliArgs, root } from '../helpers/cli-process.js';

// One name per concept (docs/GLOSSARY.md): each renamed CLI verb answers under its new name, and its former name
// still runs the same action after saying the new name on stderr. No server listens at this address, so both
// reach the same action and end in the same connection error.
const env = { ...process.env, SLIPWAY_URL: 'http://127.0.0.1:9', SLIPWAY_KEY: 'sk_test', SLIPWAY_DATA_DIR: '' };
const slipway = (...args: string[]) => spawnSync(process.execPath, [...cliArgs, ...args], { cwd: root, env, encoding: 'utf8' });

const renamed: { now: string[]; former: string[]; notice: RegExp }[] = [
  { now: ['audit', '--limit', '1'], former: ['events', '--limit', '1'], notice: /^slipway: `events` is now `audit` \(the old name still works\)\n/ },
  { now: ['variables', 'web'], former: ['env', 'web'], notice: /^slipway: `env` is now `variables`/ },
  { now: ['releases', 'web', '--timeline'], former: ['history', 'web'], notice: /^slipway: `history` is now `releases --timeline`/ },
  {
    now: ['notification-channels', 'notifications', 'abc'],
    former: ['channels', 'deliveries', 'abc'],
    notice: /^slipway: `notification-channels deliveries` is now `notification-channels notifications`/,
  },
];

for (const { now, former, notice } of renamed) {
  t.test(`${former.join(' ')} is now ${now.join(' ')}`, async (t) => {
    const current = slipway(...now);
    t.equal(current.status, 1, 'the new name runs its action (and fails to reach the server)');
    t.match(current.stderr, /^slipway: cannot reach Slipway at http:\/\/127\.0\.0\.1:9/, current.stderr);
    const old = slipway(...former);
    t.equal(old.status, current.status, 'the former name runs the same action');
    t.match(old.stderr, notice, 'and says the new name on stderr');
    t.equal(old.stderr.slice(old.stderr.indexOf('\n') + 1), current.stderr, 'then the same answer');
  });
}

t.test('the help lists the new names only', async (t) => {
  const help = slipway('--help');
  t.equal(help.status, 0);
  t.match(help.stdout, /\n {2}audit \[options\]/);
  t.match(help.stdout, /\n {2}variables \[options\] <service>/);
  for (const former of ['events', 'env', 'history']) t.notMatch(help.stdout, new RegExp(`\\n {2}${former} `), `${former} is not listed`);
  t.notMatch(slipway('channels', '--help').stdout, /\n {2}deliveries /);
});
