#!/usr/bin/env -S node --liftoff-only --max-semi-space-size=1 --v8-pool-size=1
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import { createLogger } from '../logger.js';
import { startSlipway } from '../slipway.js';
import type { AdminRequest } from './admin-commands.js';
import { runAdminCommand } from './admin-commands.js';
import { callAdminSocket } from './admin-socket.js';
import { serve } from './serve.js';
import type { RebuildProgress } from '../../projections/rebuild.js';

const USAGE = `usage:
  slipway serve
  slipway keys create --name NAME --access read|write [--project ID ...]
  slipway keys list
  slipway keys revoke ID
  slipway projections rebuild [PROJECTOR ...]
  slipway projections status
  slipway projections parked
  slipway projections retry|skip PROJECTOR EVENT_ID
  slipway events [--stream STREAM] [--correlation ID] [--after POSITION] [--limit N]`;

class UsageError extends Error {}

function parseRequest(argv: string[]): AdminRequest {
  const [group, action, ...rest] = argv;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      access: { type: 'string' },
      project: { type: 'string', multiple: true },
      stream: { type: 'string' },
      after: { type: 'string' },
      limit: { type: 'string' },
    },
  });
  const command = `${group} ${action ?? ''}`.trim();
  switch (command) {
    case 'keys create':
      if (!values.name || (values.access !== 'read' && values.access !== 'write')) {
        throw new UsageError('keys create needs --name and --access read|write');
      }
      return { command: 'keys.create', name: values.name, access: values.access, projectIds: values.project ?? null };
    case 'keys list':
      return { command: 'keys.list' };
    case 'keys revoke':
      if (!positionals[0]) throw new UsageError('keys revoke needs the key id');
      return { command: 'keys.revoke', id: positionals[0] };
    case 'projections rebuild':
      return { command: 'projections.rebuild', projectors: positionals };
    case 'projections status':
      return { command: 'projections.status' };
    case 'projections parked':
      return { command: 'projections.parked' };
    case 'projections retry':
    case 'projections skip':
      if (positionals.length !== 2) throw new UsageError(`${command} needs the projector and the event id`);
      return { command: command === 'projections retry' ? 'projections.retry' : 'projections.skip', projector: positionals[0]!, eventId: positionals[1]! };
    default:
      if (group === 'events') {
        const [, ...eventArgs] = argv;
        const parsed = parseArgs({
          args: eventArgs,
          options: { stream: { type: 'string' }, correlation: { type: 'string' }, after: { type: 'string' }, limit: { type: 'string' } },
        }).values;
        return {
          command: 'events',
          stream: parsed.stream ?? null,
          correlationId: parsed.correlation ?? null,
          after: parsed.after ?? null,
          limit: Number(parsed.limit ?? 1000),
        };
      }
      throw new UsageError(`unknown command: ${command || '(none)'}`);
  }
}

function print(request: AdminRequest, result: unknown) {
  const out = (line: string) => process.stdout.write(line + '\n');
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

async function main(argv: string[]) {
  if (argv[0] === 'serve') {
    const config = loadConfig();
    const server = await serve(config, createLogger(config.silent));
    const shutdown = () => void server.close().then(() => process.exit(0));
    process.once('SIGINT', shutdown).once('SIGTERM', shutdown);
    return;
  }
  if (!argv[0] || argv[0] === '--help' || argv[0] === 'help') {
    process.stdout.write(USAGE + '\n');
    return;
  }
  const request = parseRequest(argv);
  const config = loadConfig();
  const viaServer = await callAdminSocket(config.dataDir, request, showProgress);
  if (viaServer) {
    if (!viaServer.ok) throw new Error(viaServer.error);
    print(request, viaServer.result);
    return;
  }
  const app = await startSlipway(config, createLogger(true), { proxy: false });
  try {
    print(request, await runAdminCommand(app, request, showProgress));
  } finally {
    await app.stop();
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`slipway: ${error instanceof Error ? error.message : String(error)}\n`);
  if (error instanceof UsageError) process.stderr.write(USAGE + '\n');
  process.exit(error instanceof UsageError ? 2 : 1);
});
