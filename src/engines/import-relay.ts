import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ContainerRuntime } from '../runtime/container-runtime.js';

/**
 * Connects fd 3 to the source from inside the container, then copies both ways until either side ends (and
 * stops the other copy, so the exec ends and the client sees the close). Background jobs read /dev/null
 * unless told otherwise, hence `<&0`. Only a failure to connect reaches stderr.
 */
const RELAY = ['exec 3<>"/dev/tcp/$HOST/$PORT" || exit 1', 'exec 2>/dev/null', 'cat <&3 &', 'cat <&0 >&3 &', 'wait -n', 'kill $(jobs -p)'].join('\n');

export interface Relay {
  /** A unix socket in a directory only Slipway's user can enter: each connection to it is one to the source. */
  path: string;
  /** Why the helper could not connect to the source, if it could not. */
  failure(): string | null;
  close(): Promise<void>;
}

/**
 * A relay through a helper container: every connection to `path` becomes a connection opened by `container`
 * to `host:port` (so it leaves from the project's network, and `127.0.0.1` is the helper itself). What
 * travels through it (a password too) never enters the container's environment, arguments or files.
 */
export async function openRelay(runtime: ContainerRuntime, container: string, to: { host: string; port: number }, signal: AbortSignal): Promise<Relay> {
  const dir = await mkdtemp(join(tmpdir(), 'slipway-relay-'));
  const path = join(dir, 'source.sock');
  const open = new Set<Socket>();
  let failure: string | null = null;
  const server = createServer((socket) => {
    open.add(socket);
    socket.on('error', () => undefined);
    runtime
      .exec(container, { cmd: ['bash', '-c', RELAY], env: { HOST: to.host, PORT: String(to.port) }, stdin: socket, stdout: socket }, signal)
      .then(({ exitCode, stderr }) => {
        // bash says `bash: connect: Connection refused` and then names /dev/tcp/…: the first line is the reason.
        if (exitCode !== 0) failure ??= `the import helper could not connect to ${to.host}:${to.port}: ${stderr.split('\n')[0]?.replace(/^bash: (connect: )?/, '') || `exit code ${exitCode}`}`;
      })
      .catch(() => undefined)
      .finally(() => {
        socket.destroy();
        open.delete(socket);
      });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve());
  });
  return {
    path,
    failure: () => failure,
    async close() {
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}
