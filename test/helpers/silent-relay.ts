import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import type { Test } from 'tap';
import type { DatabaseBrowser } from '../../src/engines/browser.js';
import { kindOf } from './browser-errors.js';

/**
 * A TCP relay to a server that can go silent: from `silence()` on, it forwards nothing and closes nothing, in
 * either direction, and holds new connections unanswered. This is what a client sees of a database whose
 * container was removed behind a port mapping: no refusal, no reset, only no answer.
 */
export async function silentRelay(target: { host: string; port: number }) {
  const sockets = new Set<Socket>();
  let silent = false;
  const server = createServer((client) => {
    sockets.add(client);
    client.on('error', () => undefined);
    if (silent) return void client.pause();
    const upstream = connect(target.port, target.host);
    sockets.add(upstream);
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
    client.on('close', () => !silent && upstream.destroy());
    upstream.on('close', () => !silent && client.destroy());
    client.on('data', (chunk) => !silent && upstream.write(chunk));
    upstream.on('data', (chunk) => !silent && client.write(chunk));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: { host: '127.0.0.1', port: (server.address() as AddressInfo).port },
    silence() {
      silent = true;
      for (const socket of sockets) socket.pause();
    },
    close() {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

/**
 * A browser reached through a relay that goes silent while a statement runs: the statement must fail as a lost
 * connection (`unavailable`) instead of waiting for ever. `sleep` is the engine's statement that takes 2 s.
 */
export async function checkSilentServer(
  t: Test,
  server: { host: string; port: number },
  open: (endpoint: { host: string; port: number }) => DatabaseBrowser,
  sleep: string,
) {
  const relay = await silentRelay(server);
  t.teardown(() => relay.close());
  const through = open(relay.endpoint);
  t.same((await through.query('select 1 as one', { timeoutMs: 5_000, maxRows: 10 })).rows, [{ one: 1 }], 'answers while the server does');
  const started = Date.now();
  const pending = kindOf(through.query(sleep, { timeoutMs: 1_000, maxRows: 10 }));
  await new Promise((r) => setTimeout(r, 300));
  relay.silence();
  t.equal(await pending, 'unavailable', 'the statement fails as a lost connection');
  t.comment(`answered ${Date.now() - started} ms after it was sent`);
  void through.close();
}
