import t from 'tap';
import { oidcSettings } from '../../commands/settings/oidc-aggregate.js';
import type { OidcConfiguration } from '../../commands/settings/oidc-events.js';
import { domainAllowed, landingPath, nameOf, OidcRefused, roleOf, verifiedEmailOf, type OidcAdmission } from '../../src/people/oidc-claims.js';
import { isLoopbackHost } from '../../src/people/oidc-client.js';
import { MAX_PENDING_PER_ADDRESS, PENDING_TTL_MS, PendingSignIns } from '../../src/people/oidc-pending.js';
import { deciderSpec } from '../helpers/decider-spec.js';

const spec = deciderSpec(oidcSettings);
const configuration: OidcConfiguration = {
  issuer: 'https://id.example.com',
  clientId: 'slipway',
  clientSecret: 'enc:sealed',
  name: 'Example ID',
  allowedDomains: [],
  defaultRole: null,
  groupsClaim: 'groups',
  groupRoles: { ops: 'admin', root: 'owner', staff: 'member' },
};

t.test('settings: configured as discovered, removed only when configured', async (t) => {
  const configured = spec.given().when('configure', configuration);
  configured.then(t, [{ type: 'OidcConfigured', data: configuration }]);
  t.same(configured.state.configuration, configuration);
  spec.given().when('remove').thenThrows(t, { code: 'not_found' });
  const removed = spec.given({ type: 'OidcConfigured', data: configuration }).when('remove');
  removed.then(t, [{ type: 'OidcRemoved', data: {} }]);
  t.equal(removed.state.configuration, null);
});

t.test('claims: a verified e-mail, its domain, the highest role of the groups, else the default', async (t) => {
  const admission: OidcAdmission = configuration;
  t.equal(verifiedEmailOf({ sub: 'a', email: ' Ada@Example.COM ', email_verified: true }), 'ada@example.com');
  for (const claims of [{ sub: 'a', email: 'ada@example.com' }, { sub: 'a', email: 'ada@example.com', email_verified: false }, { sub: 'a', email_verified: true }, { sub: 'a', email: 'no-at-sign', email_verified: true }]) {
    t.throws(() => verifiedEmailOf(claims), new OidcRefused('email'), JSON.stringify(claims));
  }
  t.ok(domainAllowed('ada@example.com', []), 'no list: any domain');
  t.ok(domainAllowed('ada@example.com', ['example.com']));
  t.notOk(domainAllowed('ada@sub.example.com', ['example.com']), 'a subdomain is another domain');
  t.notOk(domainAllowed('ada@evil.com', ['example.com']));
  t.equal(roleOf({ sub: 'a', groups: ['staff', 'root', 'ops'] }, admission), 'owner', 'the highest');
  t.equal(roleOf({ sub: 'a', groups: 'ops' }, admission), 'admin', 'one group as a string');
  t.equal(roleOf({ sub: 'a', groups: ['toString', '__proto__'] }, admission), null, 'only the mapping’s own groups');
  t.equal(roleOf({ sub: 'a', groups: ['interns'] }, { ...admission, defaultRole: 'member' }), 'member', 'else the default');
  t.equal(roleOf({ sub: 'a', groups: ['ops'] }, { ...admission, groupsClaim: null }), null, 'no claim configured: groups are not read');
  t.equal(nameOf({ sub: 'a', name: 'Ada\u202e Lovelace' }, 'ada@example.com'), 'Ada  Lovelace', 'invisible characters go');
  t.equal(nameOf({ sub: 'a' }, 'ada@example.com'), 'ada');
});

t.test('landing: a path of this site only', async (t) => {
  for (const next of ['/', '/projects/abc?tab=env#x', '/installation']) t.equal(landingPath(next), next);
  for (const next of ['//evil.example', '/\\evil.example', 'https://evil.example', 'evil.example', '/\tevil', undefined, ['/a', '/b'], '/'.padEnd(3000, 'a')]) {
    t.equal(landingPath(next), '/', JSON.stringify(next));
  }
  t.ok(isLoopbackHost('127.0.0.1') && isLoopbackHost('localhost') && isLoopbackHost('[::1]'));
  t.notOk(isLoopbackHost('127.0.0.1.evil.com') || isLoopbackHost('10.0.0.1'));
});

t.test('pending sign-ins: taken once, gone after 10 minutes', async (t) => {
  let now = 1_000_000;
  const pending = new PendingSignIns(() => now);
  const checks = { state: 's', nonce: 'n', verifier: 'v', redirectUri: 'https://x/cb' };
  const key = pending.add(checks, '/next', '192.0.2.1');
  t.match(key, /^[A-Za-z0-9_-]{43}$/, '256 random bits');
  t.match(pending.take(key), { ...checks, next: '/next' });
  t.equal(pending.take(key), null, 'once');
  t.equal(pending.take(undefined), null);
  const late = pending.add(checks, '/', '192.0.2.1');
  now += PENDING_TTL_MS;
  t.equal(pending.take(late), null, 'expired');
  const someone = pending.add(checks, '/', '192.0.2.1');
  const flood = Array.from({ length: MAX_PENDING_PER_ADDRESS + 5 }, () => pending.add(checks, '/', '198.51.100.9'));
  t.match(pending.take(someone), checks, 'another address’s starts never push out this one’s');
  t.equal(pending.take(flood[0]), null, 'the flooding address loses its own oldest');
  t.match(pending.take(flood.at(-1)), checks);
});
