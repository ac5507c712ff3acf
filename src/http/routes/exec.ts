import { randomUUID } from 'node:crypto';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { endExecSession, startExecSession } from '../../../commands/exec-session/handlers.js';
import type { ServiceRow } from '../../../projections/service-queries.js';
import { swarmExecTarget } from '../../cluster/swarm-exec-target.js';
import { swarmServiceOf } from '../../cluster/swarm-release-name.js';
import type { ShellSession } from '../../runtime/container-runtime.js';
import type { Slipway } from '../../slipway.js';
import { actorOf, visibleService, writerOf } from '../auth.js';
import { execApi } from '../contract/exec.js';
import { route } from '../contract/endpoint.js';
import { HttpError } from '../errors.js';
import type { ExecSessions } from '../exec/exec-sessions.js';
import { bridgeTerminal } from '../exec/terminal-bridge.js';
import { requireSessionUpgradeChecks, requireWebSocketUpgrade } from '../exec/upgrade-checks.js';
import type { Principal } from '../principals.js';
import { requestIdOf } from '../request-id.js';
import { takeUpgrade } from '../upgrades.js';
import { parseInput } from '../validation.js';

const noContainer = () => new HttpError(409, 'conflict', 'the service has no running container: deploy or start it first');

/** The command as it runs: one string through `sh -c`, several as the arguments themselves, `sh` by default. */
const argvOf = (command: string | string[] | undefined): string[] => (command === undefined ? ['sh'] : typeof command === 'string' ? ['sh', '-c', command] : command);

/** The container the terminal runs in, and the Docker host it is on. */
async function targetOf(app: Slipway, service: ServiceRow, task: string | undefined) {
  const current = service.current_container;
  if (!current || service.status === 'stopped') throw noContainer();
  const swarm = swarmServiceOf(current);
  if (!swarm) return { runtime: await app.nodes.runtime(service.node_id), container: current };
  const target = await swarmExecTarget(await app.managerHost.docker(), swarm, task).catch(() => {
    throw new HttpError(502, 'docker_unavailable', 'the cluster’s manager did not list the service’s tasks');
  });
  if (!target) throw task === undefined ? noContainer() : new HttpError(404, 'not_found', 'task not found among the service’s running tasks');
  return { runtime: await app.nodes.runtime(target.nodeId), container: target.containerId };
}

/**
 * A client's own request id is the session's correlation id, except for a project-scoped key, which must not
 * adopt another key's story (see `correlation`; it checks writes, and this write is a GET).
 */
const correlationOf = (ctx: Context, principal: Principal) => (ctx.state.requestIdGiven === true && principal.projectIds !== null ? randomUUID() : requestIdOf(ctx));

/** Engine refusals a client causes (a container that just stopped) are conflicts; anything else is the engine's fault. */
function engineError(error: unknown): HttpError {
  const status = (error as { statusCode?: number }).statusCode;
  if (status === 404 || status === 409) return noContainer();
  return new HttpError(502, 'docker_unavailable', 'the Docker engine did not open the command');
}

export function execRoutes(router: Router, app: Slipway, sessions: ExecSessions) {
  route(router, execApi.open, async (ctx) => {
    const principal = writerOf(ctx);
    const service = await visibleService(app.db, principal, ctx.params.serviceId!);
    const session = ctx.state.session as { csrfToken: string } | undefined;
    if (session) requireSessionUpgradeChecks(ctx, session);
    const query = parseInput(execApi.open.query, ctx.query);
    requireWebSocketUpgrade(ctx);
    const tty = query.tty === '1' || query.tty === 'true';
    const command = argvOf(query.command);
    const release = sessions.slots.take(service.id);
    let shell: ShellSession | null = null;
    try {
      const { runtime, container } = await targetOf(app, service, query.task);
      const commands = app.commandContext(actorOf(principal), { correlationId: correlationOf(ctx, principal) });
      const startedAt = Date.now();
      const { id } = await startExecSession(commands, { serviceId: service.id, projectId: service.project_id, containerName: container, command, tty });
      const end = (exitCode: number | null, reason: Parameters<typeof endExecSession>[2]['reason']) =>
        endExecSession(commands, id, { durationMs: Date.now() - startedAt, exitCode, reason }).catch((error: unknown) =>
          app.log.error('could not record the end of a terminal session', { session: id, error: String(error) }),
        );
      try {
        shell = await runtime.openShell(container, { cmd: command, tty });
        if (tty && query.cols && query.rows) await shell.resize({ cols: query.cols, rows: query.rows });
      } catch (error) {
        await shell?.kill().catch(() => undefined);
        await end(null, 'failed');
        throw engineError(error);
      }
      const upgrade = takeUpgrade(ctx.req);
      const ws = upgrade && (await sessions.accept(ctx.req, upgrade.socket, upgrade.head));
      if (!ws) {
        await shell.kill().catch(() => undefined);
        await end(null, 'closed');
        if (!upgrade) throw new HttpError(426, 'upgrade_required', 'this endpoint is a WebSocket: send Upgrade: websocket', [], { Upgrade: 'websocket' });
        release();
        return void (ctx.respond = false);
      }
      ctx.respond = false;
      let ended: (ending: Promise<unknown>) => void = () => undefined;
      const bridge = bridgeTerminal(ws, shell, {
        tty,
        idleMs: app.config.execIdleMs,
        onEnd: ({ exitCode, reason }) => {
          release();
          ended(end(exitCode, reason));
        },
      });
      ended = sessions.track(bridge);
    } catch (error) {
      release();
      throw error;
    }
  });
}
