import t from 'tap';
import { baseImagesOf } from '../../src/build/dockerfile-bases.js';
import { addressKind } from '../../src/outbound/address-ranges.js';
import { appendPath, baseUrl, pathSegment } from '../../src/outbound/base-url.js';
import { allowedDestinationsList, allowedDestinationsSchema, parseDestination } from '../../src/outbound/destination-entries.js';
import { createDestinationPolicy, refusalOf, type DestinationRules } from '../../src/outbound/destination-policy.js';
import { ForbiddenDestinationError, UnresolvedDestinationError } from '../../src/outbound/forbidden-destination.js';
import type { HostNetworks } from '../../src/outbound/host-networks.js';
import { registryOf } from '../../src/outbound/image-registry.js';

/** A host like a server's: a public and a ULA address of its own, docker0 and a user-defined bridge. */
const HOST: HostNetworks = {
  addresses: ['127.0.0.1', '::1', '198.51.100.20', 'fd00::2', '172.17.0.1', '192.168.144.1'],
  dockerSubnets: [
    ['172.17.0.1', 16],
    ['192.168.144.1', 20],
  ],
};

const rules = (allowed: string[] = [], denyPrivate = false) => ({ allowed: allowed.map((e) => parseDestination(e)!), denyPrivate });
const refused = (address: string, port = 443, r = rules()) => refusalOf(address, port, r, HOST);

t.test('refused by default: loopback, link-local, unspecified, multicast, broadcast, IPv4-mapped forms of those', async (t) => {
  for (const address of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '0:0:0:0:0:ffff:7f00:1']) t.match(refused(address), /loopback/, address);
  for (const address of ['169.254.169.254', 'fe80::1', 'fe80::1%eth0', '::ffff:169.254.169.254']) t.match(refused(address), /link-local/, address);
  for (const address of ['0.0.0.0', '0.1.2.3', '::', '::127.0.0.1', '255.255.255.255', '240.0.0.1', '::ffff:0.0.0.0']) t.match(refused(address), /unspecified or reserved/, address);
  for (const address of ['224.0.0.1', '239.255.255.250', 'ff02::1', '::ffff:224.0.0.1']) t.match(refused(address), /multicast/, address);
});

t.test("the host's own addresses and its Docker bridges' subnets are refused; private and public ranges pass", async (t) => {
  t.match(refused('198.51.100.20'), /an address of this host/);
  t.match(refused('fd00::2'), /an address of this host/);
  t.match(refused('::ffff:198.51.100.20'), /an address of this host/, 'mapped');
  t.match(refused('172.17.0.5'), /Docker network/, 'another container on docker0');
  t.match(refused('192.168.150.3'), /Docker network/, 'a container of another project');
  t.match(refused('192.168.144.1'), /this host/, "the bridge's gateway is the host");
  for (const address of ['10.1.2.3', '172.16.0.1', '192.168.1.10', '100.64.0.1', 'fd12::1', '93.184.216.34', '2606:4700::1111', '::ffff:93.184.216.34']) {
    t.equal(refused(address), null, address);
  }
});

t.test('denyPrivateDestinations refuses the private ranges too', async (t) => {
  for (const address of ['10.1.2.3', '172.31.255.255', '192.168.1.10', '100.100.100.200', 'fd12::1', '::ffff:10.0.0.1']) {
    t.match(refused(address, 443, rules([], true)), /private address/, address);
  }
  t.equal(refused('93.184.216.34', 443, rules([], true)), null, 'public still passes');
});

t.test('allowedDestinations: networks with an optional port let exactly those through', async (t) => {
  t.equal(refused('127.0.0.1', 3000, rules(['127.0.0.1:3000'])), null);
  t.match(refused('127.0.0.1', 3001, rules(['127.0.0.1:3000'])), /loopback/, 'another port');
  t.match(refused('127.0.0.2', 3000, rules(['127.0.0.1:3000'])), /loopback/, 'another address');
  t.equal(refused('::ffff:127.0.0.1', 3000, rules(['127.0.0.1:3000'])), null, 'the mapped form of an allowed address');
  t.equal(refused('127.9.9.9', 1, rules(['127.0.0.0/8'])), null, 'a network, any port');
  t.equal(refused('::1', 8080, rules(['[::1]:8080'])), null);
  t.match(refused('::1', 8081, rules(['[::1]:8080'])), /loopback/);
  t.equal(refused('::1', 1, rules(['::1'])), null);
  t.equal(refused('172.17.0.5', 5432, rules(['172.17.0.0/16'])), null, 'a Docker bridge the operator chose to allow');
  t.equal(refused('10.0.0.7', 5432, rules(['10.0.0.0/8'], true)), null, 'allowed despite denyPrivateDestinations');
});

t.test('allowedDestinations entries: parsed, canonical, validated', async (t) => {
  t.same(allowedDestinationsSchema.parse(['127.0.0.1:3000', '127.0.0.0/8', '[::1]:8080', '::1', '10.0.0.0/8', ' FD00::/8 ', '[fd00::/8]:443', '10.1.2.3/32', '127.0.0.1:3000']), [
    '127.0.0.1:3000',
    '127.0.0.0/8',
    '[::1]:8080',
    '::1',
    '10.0.0.0/8',
    'fd00::/8',
    '[fd00::/8]:443',
    '10.1.2.3',
  ]);
  for (const bad of ['localhost', 'example.com:80', '127.0.0.1:0', '127.0.0.1:65536', '10.0.0.0/33', '::1/129', '::1:8080x', '300.1.1.1', '1.2.3', '', 'http://127.0.0.1/', '[::1]:']) {
    t.notOk(allowedDestinationsSchema.safeParse([bad]).success, `${JSON.stringify(bad)} is refused`);
  }
  t.same(allowedDestinationsList.parse('127.0.0.1:3000, [::1]:8080,,10.0.0.0/8 '), ['127.0.0.1:3000', '[::1]:8080', '10.0.0.0/8']);
  t.same(allowedDestinationsList.parse(undefined), []);
  t.notOk(allowedDestinationsList.safeParse('127.0.0.1:3000,nope').success);
});

t.test('address kinds', async (t) => {
  t.equal(addressKind('8.8.8.8'), 'public');
  t.equal(addressKind('::ffff:10.0.0.1'), 'private');
  t.equal(addressKind('fec0::1'), 'private');
});

t.test('the policy resolves once, checks every address, and is read at every check', async (t) => {
  let allowed: string[] = [];
  let lookups = 0;
  const names: Record<string, string[]> = { 'public.test': ['93.184.216.34'], 'sneaky.test': ['93.184.216.34', '127.0.0.1'], 'inside.test': ['::1'] };
  const policy = createDestinationPolicy({
    rules: async (): Promise<DestinationRules> => ({ allowed, denyPrivate: false }),
    host: () => HOST,
    lookup: async (name) => {
      lookups++;
      const found = names[name];
      if (!found) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
      return found;
    },
  });
  t.same(await policy.resolve('public.test', 443), ['93.184.216.34']);
  t.equal(lookups, 1, 'one lookup');
  const sneaky = await policy.resolve('sneaky.test', 443).catch((e: unknown) => e);
  t.type(sneaky, ForbiddenDestinationError, 'one refused address refuses the name');
  t.match((sneaky as Error).message, /^sneaky\.test:443 resolves to a loopback address/);
  t.notOk((sneaky as Error).message.includes('127.0.0.1'), 'what the name resolves to is not told');
  t.type(await policy.resolve('127.0.0.1', 6379).catch((e: unknown) => e), ForbiddenDestinationError, 'an address is checked as it is');
  t.equal(lookups, 2, 'an address is not looked up');
  t.type(await policy.resolve('nowhere.test', 443).catch((e: unknown) => e), UnresolvedDestinationError);

  const vetted = await policy.vet('inside.test', 8080, 'sourceUrl').catch((e: unknown) => e);
  t.type(vetted, ForbiddenDestinationError);
  t.same((vetted as ForbiddenDestinationError).details, [{ path: 'sourceUrl', message: (vetted as Error).message }], 'names the field');
  t.equal((vetted as ForbiddenDestinationError).code, 'forbidden_destination');
  await policy.vet('nowhere.test', 443, 'repoUrl');
  t.pass('a name that does not resolve passes the vetting: it is checked again at the connection');

  allowed = ['[::1]:8080'];
  t.same(await policy.resolve('inside.test', 8080), ['::1'], 'a settings change applies to the next check');
});

t.test('base URLs: absolute http(s), no query, fragment or credentials; paths appended, never replaced', async (t) => {
  t.equal(baseUrl.parse('https://api.example.com/v1/'), 'https://api.example.com/v1');
  for (const bad of ['http://127.0.0.1:2019/?', 'http://h/a?b=c', 'http://h/#', 'http://h/a#b', 'http://u:p@h/', 'http://u@h/', 'ftp://h/', '/relative', 'not a url']) {
    t.notOk(baseUrl.safeParse(bad).success, bad);
  }
  t.equal(appendPath('http://h:1/prefix', 'v1/models'), 'http://h:1/prefix/v1/models');
  t.equal(appendPath('http://h:1/prefix/', '/v1/models?limit=5'), 'http://h:1/prefix/v1/models?limit=5');
  t.throws(() => appendPath('http://h:1/prefix', '../config/'), /leaves/);
  t.throws(() => appendPath('http://h:1/prefix', 'a/%2e%2e/%2E%2E/load'), /leaves/);
  t.equal(appendPath('http://h:1/a', '//other.example/x'), 'http://h:1/a/other.example/x', 'no other origin');
  t.equal(pathSegment('a/b?c'), 'a%2Fb%3Fc');
  t.throws(() => pathSegment('..'));
  t.throws(() => pathSegment('.'));
});

t.test("an image's registry", async (t) => {
  t.equal(registryOf('nginx:1.27'), null);
  t.equal(registryOf('library/redis:7'), null);
  t.equal(registryOf('docker.io/library/redis:7'), null);
  t.same(registryOf('127.0.0.1:5000/x:1'), { host: '127.0.0.1', ports: [5000] });
  t.same(registryOf('localhost/x'), { host: 'localhost', ports: [443, 80] });
  t.same(registryOf('ghcr.io/owner/app@sha256:' + 'a'.repeat(64)), { host: 'ghcr.io', ports: [443, 80] });
  t.same(registryOf('[::1]:5000/x'), { host: '::1', ports: [5000] });
});

t.test("a Dockerfile's base images: ARG defaults, stages, scratch, COPY --from", async (t) => {
  const dockerfile = [
    '# syntax=docker/dockerfile:1',
    'ARG REGISTRY=127.0.0.1:5000',
    'ARG TAG="1.2"',
    'FROM --platform=linux/amd64 ${REGISTRY}/base:$TAG AS build',
    'RUN echo from build',
    'FROM build AS test',
    'FROM scratch',
    'FROM \\',
    '  node:20 AS node',
    'FROM ${MISSING:-ghcr.io/x/y}',
    'COPY --from=build /out /out',
    'COPY --from=0 /out /out',
    'COPY --chown=1:1 --from=169.254.169.254/img:1 /a /b',
    'COPY . .',
  ].join('\n');
  t.same(baseImagesOf(dockerfile), ['127.0.0.1:5000/base:1.2', 'node:20', 'ghcr.io/x/y', '169.254.169.254/img:1']);
});
