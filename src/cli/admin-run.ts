import type { RebuildProgress } from '../../projections/rebuild.js';
import { loadConfig } from '../config.js';
import { createLogger } from '../logger.js';
import { startSlipway } from '../slipway.js';
import { runAdminCommand, type AdminRequest } from './admin-commands.js';
import { callAdminSocket } from './admin-socket.js';
import { out } from './api/output.js';
import { requireInstallation } from './installation-dir.js';
import { printHealth } from './health-table.js';

function print(request: AdminRequest, result: unknown, json: boolean) {
  switch (request.command) {
    case 'keys.create': {
      const { key, secret } = result as { key: { id: string; name: string; access: string; projectIds: string[] | null }; secret: string };
      out(`id: ${key.id}`);
      out(`name: ${key.name}`);
      out(`access: ${key.access}`);
      out(`projects: ${key.projectIds ? key.projectIds.join(',') : 'all'}`);
      out(secret);
      return;
    }
    case 'keys.list': {
      const { keys } = result as { keys: { id: string; name: string; access: string; projectIds: string[] | null; prefix: string; revokedAt: string | null }[] };
      for (const k of keys) {
        out([k.id, k.prefix + '…', k.access, k.projectIds ? k.projectIds.join(',') : 'all', k.revokedAt ? `revoked ${k.revokedAt}` : 'active', k.name].join('\t'));
      }
      return;
    }
    case 'events':
      for (const e of (result as { events: unknown[] }).events) out(JSON.stringify(e));
      return;
    case 'projections.status':
      if (json) out(JSON.stringify(result));
      else printHealth(result as Parameters<typeof printHealth>[0]);
      return;
    default:
      out(JSON.stringify(result));
  }
}

/** Long commands (a rebuild) report how far they are on stderr, so stdout stays the result. */
function showProgress(update: unknown) {
  const p = update as RebuildProgress;
  const total = p.total === null ? '' : ` of ${p.total}`;
  const left = p.secondsLeft === null ? '' : `, ~${p.secondsLeft} s left`;
  process.stderr.write(`${p.phase}: ${p.events}${total} events, ${p.perSecond} events/s${left}\n`);
}

export interface AdminOptions {
  /** `--data-dir`: before SLIPWAY_DATA_DIR. */
  dataDir?: string;
  json?: boolean;
}

/**
 * An operator's command on this machine's data directory: run by the server that holds it (through its
 * admin socket) when one runs, else here. The directory must already hold an installation.
 */
export async function runAdmin(request: AdminRequest, o: AdminOptions = {}) {
  const config = loadConfig(o.dataDir ? { ...process.env, SLIPWAY_DATA_DIR: o.dataDir } : process.env);
  requireInstallation(config.dataDir, o.dataDir ? 'option' : process.env.SLIPWAY_DATA_DIR ? 'environment' : 'default', Boolean(config.databaseUrl));
  const viaServer = await callAdminSocket(config.dataDir, request, showProgress);
  if (viaServer) {
    if (!viaServer.ok) throw new Error(viaServer.error);
    print(request, viaServer.result, Boolean(o.json));
    return;
  }
  const app = await startSlipway(config, createLogger(true), { proxy: false });
  try {
    print(request, await runAdminCommand(app, request, showProgress), Boolean(o.json));
  } finally {
    await app.stop();
  }
}
