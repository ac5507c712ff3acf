import type { NetworkAddresses } from '../runtime/container-runtime.js';

/** Authentication methods pg_hba.conf knows: anything else in the variable is ignored, never written into the file. */
const METHOD = /^[a-z][a-z0-9-]*$/;

const hostOnly = (address: string) => (address.includes(':') ? `${address}/128` : `${address}/32`);

/**
 * Who may connect how to a Postgres-compatible service that has TLS. Inside the container (socket and
 * loopback) as the image's initdb left it: its entrypoint and Slipway's tools run there. Containers of the
 * project may connect without TLS over the project network. Everything else needs TLS: outside clients of a
 * public service, and every connection relayed from the host through the published port — docker-proxy
 * relays those from the network's gateway, which lies inside the network's range, so the gateway's lines come
 * first. The password method is the image's (POSTGRES_HOST_AUTH_METHOD, scram-sha-256 by default).
 */
export function postgresHba(env: Record<string, string>, network: readonly NetworkAddresses[]): string {
  const method = env.POSTGRES_HOST_AUTH_METHOD && METHOD.test(env.POSTGRES_HOST_AUTH_METHOD) ? env.POSTGRES_HOST_AUTH_METHOD : 'scram-sha-256';
  const lines = ['# Written by Slipway at each deployment (hba_file); the data directory\'s pg_hba.conf is not read.'];
  for (const database of ['all', 'replication']) {
    lines.push(`local ${database} all trust`, `host ${database} all 127.0.0.1/32 trust`, `host ${database} all ::1/128 trust`);
  }
  for (const { gateway } of network) {
    if (gateway) lines.push(`hostssl all all ${hostOnly(gateway)} ${method}`, `host all all ${hostOnly(gateway)} reject`);
  }
  // A range whose gateway is unknown could be relaying the host's connections: it gets no line of its own.
  for (const { subnet, gateway } of network) if (gateway) lines.push(`host all all ${subnet} ${method}`);
  lines.push(`hostssl all all all ${method}`);
  return `${lines.join('\n')}\n`;
}
