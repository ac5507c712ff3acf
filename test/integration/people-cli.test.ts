import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Secret, TOTP } from 'otpauth';
import t from 'tap';
import { createProject } from '../helpers/api-suite.js';
import { slipwayWithInput } from '../helpers/cli-process.js';
import { startTestServer } from '../helpers/test-server.js';

const slipway = slipwayWithInput;

t.test('the CLI makes the first owner, invites a member into a project, and logs in as a person with a key of their own', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  const shop = await createProject(s, 'Shop');
  await createProject(s, 'Other');
  const admin = { SLIPWAY_URL: s.url, SLIPWAY_KEY: s.key };

  const owner = await slipway(admin, ['users', 'create-owner', '--email', 'ada@example.com', '--name', 'Ada'], 'correct horse battery\n');
  t.equal(owner.status, 0, owner.stderr);
  t.match(owner.stdout, /created the owner Ada <ada@example\.com>/);

  const invited = await slipway(admin, ['invitations', 'create', 'grace@example.com', '--project', `${shop.slug}:deployer`]);
  t.equal(invited.status, 0, invited.stderr);
  const link = /https?:\/\/\S+\/invitations\/\S+/.exec(invited.stdout)?.[0];
  t.ok(link, 'the link to send');
  t.match((await slipway(admin, ['invitations', 'list'])).stdout, /grace@example\.com\s+member/);
  const wrongRole = await slipway(admin, ['invitations', 'create', 'x@example.com', '--project', `${shop.slug}:boss`]);
  t.equal(wrongRole.status, 1);
  t.match(wrongRole.stderr, /<project>:admin, <project>:deployer or <project>:viewer/);

  const token = new URL(link!).pathname.split('/').pop()!;
  const accepted = await s.call('POST', `/api/invitations/${token}/accept`, { key: null, body: { name: 'Grace', password: 'a long enough password' } });
  t.equal(accepted.status, 200);
  const graceId = accepted.body.user.id as string;
  t.match((await slipway(admin, ['members', 'list', shop.slug])).stdout, new RegExp(`${graceId}\\s+Grace\\s+grace@example\\.com\\s+deployer`));
  t.equal((await slipway(admin, ['members', 'set', shop.slug, graceId, 'admin'])).status, 0);
  t.match((await slipway(admin, ['users', 'list'])).stdout, new RegExp(`${graceId}\\s+Grace\\s+grace@example\\.com\\s+member\\s+${shop.id}:admin`));

  const home = mkdtempSync(join(tmpdir(), 'slipway-cli-home-'));
  const asGrace = { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), SLIPWAY_URL: s.url };
  const wrong = await slipway(asGrace, ['login', '--email', 'grace@example.com'], 'not her password\n');
  t.equal(wrong.status, 1);
  t.match(wrong.stderr, /unknown e-mail or wrong password/);
  const login = await slipway(asGrace, ['login', '--email', 'grace@example.com'], 'a long enough password\n');
  t.equal(login.status, 0, login.stderr);
  t.match(login.stdout, /logged in to .* \(this key sees 1 project\(s\)\)/, 'her key sees her one project');
  const projects = await slipway({ ...asGrace }, ['projects', 'list']);
  t.match(projects.stdout, /Shop/);
  t.notMatch(projects.stdout, /Other/);
  const keys = (await s.call('GET', '/api/keys')).body.keys as { ownerUserId: string | null; name: string }[];
  t.ok(keys.some((k) => k.ownerUserId === graceId && k.name.startsWith('CLI on ')), 'a personal key named after the machine');
  const saved = readFileSync(join(home, '.config', 'slipway', 'credentials.json'), 'utf8');
  t.match(saved, /"key": "slw_/, 'the key is saved');
  t.notMatch(saved, /a long enough password/, 'the password is not');

  // With two factors on, the login asks for the code after the password.
  const signedIn = await s.call('POST', '/api/sessions', { key: null, body: { email: 'grace@example.com', password: 'a long enough password' } });
  const session = { key: null, headers: { cookie: signedIn.headers.get('set-cookie')!.split(';')[0]!, 'x-csrf-token': signedIn.body.session.csrfToken as string } };
  const app = new TOTP({ secret: Secret.fromBase32((await s.call('POST', '/api/users/me/totp', session)).body.secret as string) });
  t.equal((await s.call('POST', '/api/users/me/totp/confirm', { ...session, body: { code: app.generate() } })).status, 200);
  const withCode = await slipway(asGrace, ['login', '--email', 'grace@example.com'], `a long enough password\n${app.generate({ timestamp: Date.now() + 30_000 })}\n`);
  t.equal(withCode.status, 0, withCode.stderr);
  t.match(withCode.stdout, /logged in to /, 'the password, then the code');
});
