import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

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
