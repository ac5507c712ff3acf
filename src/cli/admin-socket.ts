import { chmodSync, rmSync } from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { DomainError } from '../../commands/shared/domain-error.js';
import type { Slipway } from '../slipway.js';
import { adminRequest, runAdminCommand, type AdminRequest } from './admin-commands.js';

const adminSocketPath = (dataDir: string) => join(dataDir, 'slipway.sock');

type AdminReply = { ok: true; result: unknown } | { ok: false; error: string };
/** Before the reply, a long command may send progress lines. */
type AdminLine = AdminReply | { progress: unknown };

/** Lets the CLI act through the running server, which holds the data directory; the socket is 0600. */
export async function listenAdminSocket(app: Slipway): Promise<Server> {
  const path = adminSocketPath(app.config.dataDir);
  rmSync(path, { force: true });
  const server = createServer((socket) => {
    let buffer = '';
    socket.setEncoding('utf8');
    socket.on('data', async (chunk: string) => {
      buffer += chunk;
      const newline = buffer.indexOf('\n');
      if (newline < 0) return;
      let reply: AdminReply;
      try {
        const progress = (update: unknown) => socket.write(JSON.stringify({ progress: update }) + '\n');
        const result = await runAdminCommand(app, adminRequest.parse(JSON.parse(buffer.slice(0, newline))), progress);
        reply = { ok: true, result };
      } catch (error) {
        reply = { ok: false, error: error instanceof DomainError || error instanceof Error ? error.message : String(error) };
      }
      socket.end(JSON.stringify(reply) + '\n');
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(path, resolve));
  chmodSync(path, 0o600);
  return server;
}

/** `null` when no server listens on the socket. */
export function callAdminSocket(dataDir: string, request: AdminRequest, onProgress: (update: unknown) => void = () => undefined): Promise<AdminReply | null> {
  return new Promise((resolve) => {
    const socket = createConnection(adminSocketPath(dataDir));
    let data = '';
    let reply: AdminReply | null = null;
    const take = (line: string) => {
      if (line.trim() === '') return;
      const parsed = JSON.parse(line) as AdminLine;
      if ('progress' in parsed) onProgress(parsed.progress);
      else reply = parsed;
    };
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(JSON.stringify(request) + '\n'));
    socket.on('data', (chunk: string) => {
      data += chunk;
      const lines = data.split('\n');
      data = lines.pop() ?? '';
      lines.forEach(take);
    });
    socket.on('end', () => {
      take(data);
      resolve(reply);
    });
    socket.on('error', () => resolve(null));
  });
}
