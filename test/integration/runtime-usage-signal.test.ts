import { createServer, type Socket } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { createDockerRuntime } from '../../src/runtime/docker-runtime.js';

t.test('a container\'s usage stream ends when its signal fires, even on an engine that never answers', async (t) => {
  // An engine that accepts the connection, reads the request and never says a word.
  const dir = mkdtempSync(join(tmpdir(), 'slipway-silent-engine-'));
  const socketPath = join(dir, 'docker.sock');
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.resume();
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  t.teardown(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  const runtime = createDockerRuntime({ socketPath, instance: 'test', callTimeoutMs: 30_000 });
  const stop = new AbortController();
  const readings: unknown[] = [];
  const reading = (async () => {
    for await (const r of runtime.usage('slipway-anything', stop.signal)) readings.push(r);
  })();
  await new Promise((r) => setTimeout(r, 200));
  stop.abort();
  await reading;
  t.same(readings, [], 'no reading, and no error: the sampler stopped it');
  // The engine's side of the connection hears of its end a moment later.
  for (let i = 0; i < 50 && sockets.size > 0; i++) await new Promise((r) => setTimeout(r, 20));
  t.equal(sockets.size, 0, 'its connection to the engine is closed');
});
