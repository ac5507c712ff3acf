import { createServer, type Socket } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { createDockerRuntime } from '../../src/runtime/docker-runtime.js';

t.test('stats answer null within their deadline when the engine does not answer', async (t) => {
  // An engine that accepts the connection and never says a word.
  const dir = mkdtempSync(join(tmpdir(), 'slipway-silent-engine-'));
  const socketPath = join(dir, 'docker.sock');
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  t.teardown(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  const runtime = createDockerRuntime({ socketPath, instance: 'test', callTimeoutMs: 30_000 });
  const started = Date.now();
  t.equal(await runtime.stats('slipway-anything', 300), null, 'unknown use, not an error');
  const took = Date.now() - started;
  t.ok(took >= 250 && took < 2_000, `answered after its own deadline, not the engine's call timeout (${took} ms)`);
});
