import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { cloneBranch } from '../../src/build/git-source.js';
import { openRemoteStorage } from '../../src/integrations/remote-storage.js';
import { outboundFetch } from '../../src/outbound/checked-connections.js';
import { createDestinationPolicy, type DestinationPolicy } from '../../src/outbound/destination-policy.js';
import { ForbiddenDestinationError } from '../../src/outbound/forbidden-destination.js';
import { startGitServer } from '../helpers/git-server.js';
import { destinationOf } from '../helpers/outbound.js';
import { startS3Server } from '../helpers/s3-server.js';

/**
 * A policy whose resolver knows names the system's does not (`*.pinned.test`): a connection to such a name
 * succeeds only if it goes to the address the policy checked, without a second lookup.
 */
function pinnedPolicy(names: Record<string, string[]>, allowed: string[]): DestinationPolicy {
  return createDestinationPolicy({
    rules: async () => ({ allowed, denyPrivate: false }),
    lookup: async (name) => {
      const found = names[name];
      if (!found) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
      return found;
    },
  });
}

/** An HTTP server that records requests; `answer` decides each one. */
async function httpServer(t: Test, answer: (url: string, res: ServerResponse) => void) {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(req.url ?? '');
    answer(req.url ?? '', res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
  return { port: (server.address() as AddressInfo).port, requests };
}

const git = await startGitServer();
t.teardown(() => git.close());
const gitPort = new URL(git.baseUrl).port;
const sha = git.push('acme/app', { 'README.md': 'hello\n' });

t.test('fetch connects to the address the policy checked, not to a second answer of DNS', async (t) => {
  const server = await httpServer(t, (_url, res) => res.end('pinned'));
  const policy = pinnedPolicy({ 'api.pinned.test': ['127.0.0.1'] }, [`127.0.0.1:${server.port}`]);
  t.same(await outboundFetch(policy, `http://api.pinned.test:${server.port}/v1/models`), { status: 200, text: 'pinned' });
  t.same(server.requests, ['/v1/models']);
  const refused = await outboundFetch(pinnedPolicy({ 'api.pinned.test': ['127.0.0.1'] }, []), `http://api.pinned.test:${server.port}/`).catch((e: unknown) => e);
  t.type(refused, ForbiddenDestinationError);
  t.equal(server.requests.length, 1, 'the refused request never arrived');
});

t.test('a redirect is not followed: an allowed server cannot send a request elsewhere', async (t) => {
  const inside = await httpServer(t, (_url, res) => res.end('internal'));
  const outside = await httpServer(t, (_url, res) => res.writeHead(302, { location: `http://127.0.0.1:${inside.port}/config/` }).end());
  const policy = pinnedPolicy({}, [`127.0.0.1:${outside.port}`, `127.0.0.1:${inside.port}`]);
  const error = await outboundFetch(policy, `http://127.0.0.1:${outside.port}/`).catch((e: unknown) => e);
  t.type(error, Error, 'the redirect fails the request');
  t.same(inside.requests, [], 'even an allowed target of a redirect is not asked');
});

t.test('git clones from the address the policy checked (curl gets it as its only answer), over http(s) only', async (t) => {
  const work = mkdtempSync(join(tmpdir(), 'slipway-outbound-clone-'));
  t.teardown(() => rmSync(work, { recursive: true, force: true }));
  const clone = (url: string, policy: DestinationPolicy, dir: string) =>
    cloneBranch({ url, branch: 'main', token: null, dir: join(work, dir), signal: new AbortController().signal, onLine: () => undefined, outbound: policy });

  const policy = pinnedPolicy({ 'git.pinned.test': ['127.0.0.1'] }, [`127.0.0.1:${gitPort}`]);
  t.equal((await clone(`http://git.pinned.test:${gitPort}/acme/app.git`, policy, 'a')).sha, sha, 'a name only the policy resolves is cloned');

  const before = git.requests.length;
  const refused = await clone(`http://git.pinned.test:${gitPort}/acme/app.git`, pinnedPolicy({ 'git.pinned.test': ['127.0.0.1'] }, []), 'b').catch((e: unknown) => e);
  t.type(refused, ForbiddenDestinationError);
  t.match((refused as Error).message, /git\.pinned\.test:\d+ resolves to a loopback address/);
  const literal = await clone(`${git.baseUrl}/acme/app.git`, pinnedPolicy({}, []), 'c').catch((e: unknown) => e);
  t.type(literal, ForbiddenDestinationError, 'an address in the URL is checked too');
  t.equal(git.requests.length, before, 'no refused clone reached the server');

  for (const url of [`file://${work}/a`, `ext::sh -c touch% ${work}/pwned`, `${work}/a`]) {
    const error = await clone(url, policy, `d${Math.random()}`).catch((e: unknown) => e);
    t.type(error, Error, url);
    t.match((error as Error).message, /only http and https|Invalid URL/, url);
  }
  t.notOk(existsSync(join(work, 'pwned')), 'ext:: ran nothing');
});

t.test('git does not follow a redirect to another server', async (t) => {
  const elsewhere = await httpServer(t, (_url, res) => res.writeHead(404).end());
  const redirector = await httpServer(t, (url, res) => res.writeHead(301, { location: `http://127.0.0.1:${elsewhere.port}${url}` }).end());
  const work = mkdtempSync(join(tmpdir(), 'slipway-outbound-clone-'));
  t.teardown(() => rmSync(work, { recursive: true, force: true }));
  const policy = pinnedPolicy({}, [`127.0.0.1:${redirector.port}`, `127.0.0.1:${elsewhere.port}`]);
  const error = await cloneBranch({ url: `http://127.0.0.1:${redirector.port}/acme/app.git`, branch: 'main', token: null, dir: join(work, 'x'), signal: new AbortController().signal, onLine: () => undefined, outbound: policy }).catch((e: unknown) => e);
  t.type(error, Error);
  t.ok(redirector.requests.length > 0, 'the allowed server was asked');
  t.same(elsewhere.requests, [], 'the redirect was not followed');
});

t.test('S3 connects to the address the policy checked', async (t) => {
  const s3 = await startS3Server();
  t.teardown(() => s3.stop());
  const port = new URL(s3.endpoint).port;
  const config = { endpoint: `http://s3.pinned.test:${port}`, region: s3.region, bucket: s3.bucket, accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey, prefix: 'p', forcePathStyle: true };
  const storage = await openRemoteStorage(config, pinnedPolicy({ 's3.pinned.test': ['127.0.0.1'] }, [destinationOf(s3.endpoint)]));
  t.teardown(() => storage.close());
  await storage.probe();
  t.ok(s3.requests.length >= 3, 'the probe went to the checked address');
});
