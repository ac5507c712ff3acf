import { createServer, type Server, type Socket } from 'node:net';
import t, { type Test } from 'tap';
import { probeHttp, probeTcp } from '../../src/processes/health/health-probes.js';
import { freePort } from '../helpers/net.js';

/** A raw TCP server that does `onConnection` with each client; every socket is destroyed at teardown. */
async function rawServer(t: Test, onConnection: (socket: Socket) => void): Promise<number> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
    onConnection(socket);
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  t.teardown(() => {
    for (const s of sockets) s.destroy();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return port;
}

const timed = async <T>(fn: () => Promise<T>) => {
  const started = Date.now();
  const value = await fn();
  return { value, ms: Date.now() - started };
};

t.test('an HTTP probe of a hostile app is bounded in time and bytes', async (t) => {
  const silent = await rawServer(t, () => undefined);
  const trickle = await rawServer(t, (socket) => {
    socket.write('HTTP/1.1 200 OK\r\n');
    const timer = setInterval(() => socket.write('X-Slow: a\r\n'), 50);
    socket.on('close', () => clearInterval(timer));
  });
  const flood = await rawServer(t, (socket) => {
    socket.write(`HTTP/1.1 200 OK\r\nX-Big: ${'a'.repeat(1024 * 1024)}\r\n\r\n`);
  });
  const endless = await rawServer(t, (socket) => {
    socket.write('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n');
    const timer = setInterval(() => socket.write('400\r\n' + 'b'.repeat(1024) + '\r\n'), 5);
    socket.on('close', () => clearInterval(timer));
  });
  const notHttp = await rawServer(t, (socket) => socket.end('SSH-2.0-OpenSSH\r\n'));

  const a = await timed(() => probeHttp('127.0.0.1', silent, '/health', '200-399', 500));
  t.same(a.value, { ok: false, detail: `no answer from /health on port ${silent} within 0.5 s` });
  t.ok(a.ms < 1500, `a server that never answers: ${a.ms} ms`);

  const b = await timed(() => probeHttp('127.0.0.1', trickle, '/health', '200-399', 500));
  t.equal(b.value.ok, false);
  t.ok(b.ms < 1500, `headers that never end: ${b.ms} ms (${b.value.detail})`);

  const c = await timed(() => probeHttp('127.0.0.1', flood, '/', '200', 2000));
  t.same(c.value, { ok: false, detail: "the answer's headers exceed 8 KiB" });
  t.ok(c.ms < 1500, `huge headers: ${c.ms} ms`);

  const d = await timed(() => probeHttp('127.0.0.1', endless, '/', '200', 2000));
  t.same(d.value, { ok: true, detail: 'HTTP 200 from /' }, 'the body is never read');
  t.ok(d.ms < 1500, `a body that never ends: ${d.ms} ms`);

  t.same(await probeHttp('127.0.0.1', notHttp, '/', '200', 2000), { ok: false, detail: `not an HTTP answer on port ${notHttp}` });
  const closed = await freePort();
  t.same(await probeHttp('127.0.0.1', closed, '/', '200', 2000), { ok: false, detail: `connection refused on port ${closed}` });
});

t.test('status ranges decide an HTTP probe', async (t) => {
  const answer = (status: number) =>
    rawServer(t, (socket) => socket.once('data', () => socket.end(`HTTP/1.1 ${status} X\r\ncontent-length: 0\r\n\r\n`)));
  const five = await answer(500);
  t.same(await probeHttp('127.0.0.1', five, '/health', '200-399', 2000), { ok: false, detail: 'HTTP 500 from /health (expected 200-399)' });
  t.same(await probeHttp('127.0.0.1', five, '/', '100-499', 2000), { ok: false, detail: 'HTTP 500 from / (expected 100-499)' });
  const noContent = await answer(204);
  t.same(await probeHttp('127.0.0.1', noContent, '/ready', '200,204', 2000), { ok: true, detail: 'HTTP 204 from /ready' });
});

t.test('a TCP probe: a connection opens, or why not', async (t) => {
  const open = await rawServer(t, () => undefined);
  t.same(await probeTcp('127.0.0.1', open, 1000), { ok: true, detail: `port ${open} accepts connections` });
  const closed = await freePort();
  t.same(await probeTcp('127.0.0.1', closed, 1000), { ok: false, detail: `connection refused on port ${closed}` });
  // 192.0.2.0/24 (TEST-NET-1) routes nowhere: the deadline ends it.
  const far = await timed(() => probeTcp('192.0.2.1', 9, 300));
  t.equal(far.value.ok, false);
  t.ok(far.ms < 1500, `an address that never answers: ${far.ms} ms (${far.value.detail})`);
});
