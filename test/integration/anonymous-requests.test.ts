import { connect } from 'node:net';
import { request } from 'node:http';
import t from 'tap';
import { assertError } from '../helpers/http-errors.js';
import { rawRequest, type RawResponse } from '../helpers/http-raw.js';
import { startTestServer } from '../helpers/test-server.js';

/** A request from another loopback address, so its failures are counted apart from the test's own calls. */
function from(localAddress: string, url: string, method: string, path: string, key: string | null, body?: string): Promise<RawResponse> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) };
    const req = request({ host: u.hostname, port: u.port, method, path, headers, localAddress, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Sends only the head of a request that announces a body, and resolves with the status line once it comes. */
function headOnly(url: string, head: string): Promise<string> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(u.port), u.hostname, () => socket.write(head));
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (c: string) => {
      text += c;
      if (text.includes('\r\n')) {
        resolve(text.split('\r\n')[0]!);
        socket.destroy();
      }
    });
    socket.on('error', reject);
    socket.setTimeout(5_000, () => reject(new Error('no answer while the announced body was never sent')));
  });
}

const s = await startTestServer({ SLIPWAY_KEY_FAILURES_PER_MINUTE: '20', SLIPWAY_LOG: 'json' });
t.teardown(() => s.close());

t.test('the key is checked before the body is read', async (t) => {
  const head = (auth: string) =>
    `POST /api/projects HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n${auth}\r\n`;
  t.match(await headOnly(s.url, head('')), /^HTTP\/1\.1 401 /, 'no key: 401 without waiting for the announced megabyte');
  t.match(await headOnly(s.url, head('Authorization: Bearer slw_nope\r\n')), /^HTTP\/1\.1 401 /, 'an unknown key: the same');
});

t.test('deep bodies are refused in linear time, with 400 and never a 500', async (t) => {
  const deepArray = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
  const r = await rawRequest(s.url, 'POST', '/api/projects', { key: s.key, headers: { 'content-type': 'application/json' }, body: deepArray });
  assertError(t, r, 400, 'validation_failed', 'a 200,000-deep array');
  t.match(r.body.error.message, /deeper than 64/);
  const megabyte = `${'{"a":'.repeat(170_000)}1${'}'.repeat(170_000)}`;
  t.ok(megabyte.length > 1_000_000);
  const answers = await Promise.all([
    rawRequest(s.url, 'POST', '/api/projects', { key: s.key, headers: { 'content-type': 'application/json' }, body: megabyte }),
    rawRequest(s.url, 'GET', '/healthz'),
  ]);
  assertError(t, answers[0], 400, 'validation_failed', 'a 1 MB deep object');
  t.equal(answers[1].status, 200, '/healthz answers beside it');
  const shallowEnough = `${'{"a":'.repeat(63)}1${'}'.repeat(63)}`;
  const within = await s.call('POST', '/api/projects', { raw: shallowEnough });
  assertError(t, within, 400, 'validation_failed', '63 levels inside the body object');
  t.notMatch(within.body.error.message, /deeper than/, 'within the depth limit the schema judges the body');
  t.notMatch(s.logs(), /request failed|RangeError|Maximum call stack/, 'no failure in the server log');
});

t.test('unknown keys are limited per address: 429 with Retry-After, logged with the key prefix only', async (t) => {
  const wrong = (n: number) => `slw_wrongkey${String(n).padStart(40, '0')}`;
  for (let i = 0; i < 20; i++) {
    assertError(t, await from('127.0.0.2', s.url, 'GET', '/api/projects', wrong(i)), 401, 'unauthorized', `unknown key ${i + 1}`);
  }
  const limited = await from('127.0.0.2', s.url, 'GET', '/api/projects', wrong(21));
  assertError(t, limited, 429, 'rate_limited', 'the 21st unknown key in a minute');
  const retryAfter = Number(limited.headers['retry-after']);
  t.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
  t.equal((await from('127.0.0.2', s.url, 'GET', '/api/projects', s.key)).status, 200, 'a valid key from the limited address is answered normally');
  t.equal((await from('127.0.0.2', s.url, 'POST', '/api/projects', s.key, JSON.stringify({ name: 'From a shared NAT' }))).status, 200, 'a write too');
  assertError(t, await from('127.0.0.2', s.url, 'GET', '/api/projects', wrong(22)), 429, 'rate_limited', 'the next unknown key is still limited');
  const other = await from('127.0.0.3', s.url, 'GET', '/api/projects', s.key);
  t.equal(other.status, 200, 'another address with a valid key is not slowed');
  t.equal((await s.call('GET', '/api/projects')).status, 200, 'nor is the test client');
  assertError(t, await from('127.0.0.3', s.url, 'GET', '/api/projects', null), 401, 'unauthorized', 'no key at all is a plain 401');

  const lines = s.logs().split('\n').filter((l) => l.includes('unknown API key'));
  t.equal(lines.filter((l) => l.includes('"address":"127.0.0.2"')).length, 20, 'each failure until the limit is logged with its address');
  t.ok(lines.some((l) => l.includes('"keyPrefix":"slw_wron"')), 'with the key prefix');
  t.notOk(s.logs().includes(wrong(3)), 'never the whole key');
  t.ok(s.logs().includes('address limited'), 'the limit itself is logged once');
});
