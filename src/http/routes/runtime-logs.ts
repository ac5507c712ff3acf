import type { ServiceRow } from '../../../projections/service-queries.js';
import type { OutputLine } from '../../runtime/container-runtime.js';
import { dockerTimeKey } from '../../runtime/docker-time.js';
import { swarmServiceOf } from '../../cluster/swarm-release-name.js';
import { swarmLogs } from '../../cluster/swarm-logs.js';
import { createRedactor, secretValues } from '../../secrets/redactor.js';
import type { Slipway } from '../../slipway.js';
import { loadProjectVariables } from '../../variables/project-variables.js';
import type { SseChannel } from '../sse.js';

const SNAPSHOT_LINES = 200;
const KEEPALIVE_MS = 15_000;

/**
 * The current container's output: a snapshot of its recent lines, then new lines as they come, with
 * `status` `{ ok, closed }`. The stream closes when the container stops or is replaced by a redeploy.
 */
export async function streamRuntimeLogs(app: Slipway, service: ServiceRow, sse: SseChannel) {
  const ended = (ok: boolean) => {
    sse.send('status', { ok, closed: true });
    sse.close();
  };
  const container = service.current_container;
  if (!container) {
    sse.send('snapshot', []);
    return ended(false);
  }
  const variables = await loadProjectVariables(app.db, app.keyring, service.project_id);
  const redact = createRedactor(
    secretValues(variables.variablesOf(service.id).map((v) => ({ key: v.row.key, value: v.value, resolved: variables.resolve(v.value) }))),
  );
  let id = 0;
  const entry = (l: OutputLine & { task?: string | null; node?: string | null }) => ({
    id: ++id,
    line: redact(l.line),
    stream: l.stream,
    createdAt: l.time ? new Date(l.time).toISOString() : new Date().toISOString(),
    ...(l.task !== undefined ? { task: l.task, node: l.node ?? null } : {}),
  });
  // A Swarm service's tasks run on several nodes: the manager merges their output.
  const swarm = swarmServiceOf(container);
  const logs = swarm
    ? async function* (options: { tail?: number; since?: string; follow: boolean; signal?: AbortSignal }) {
        yield* swarmLogs(await app.managerHost.docker(), swarm, options);
      }
    : async function* (options: { tail?: number; since?: string; follow: boolean; signal?: AbortSignal }) {
        // A database pinned to a cluster node writes its output there.
        yield* (await app.nodes.runtime(service.node_id)).logs(container, options);
      };

  const controller = new AbortController();
  const keepalive = setInterval(() => sse.comment('keep-alive'), KEEPALIVE_MS);
  sse.onClose(() => {
    controller.abort();
    clearInterval(keepalive);
  });
  const since = `${(Date.now() / 1000).toFixed(3)}`;
  let snapshot: OutputLine[] = [];
  try {
    for await (const l of logs({ follow: false, tail: SNAPSHOT_LINES })) snapshot.push(l);
  } catch {
    sse.send('snapshot', []);
    return ended(false);
  }
  snapshot = snapshot.slice(-SNAPSHOT_LINES);
  const lastKey = snapshot.map((l) => (l.time ? dockerTimeKey(l.time) : null)).filter((k) => k !== null).at(-1) ?? null;
  sse.send('snapshot', snapshot.map(entry));
  sse.send('status', { ok: true, closed: false });
  try {
    for await (const l of logs({ follow: true, since: lastKey ?? since, signal: controller.signal })) {
      const key = l.time ? dockerTimeKey(l.time) : null;
      // `since` is inclusive: lines the snapshot already carried come again.
      if (lastKey && key && key <= lastKey) continue;
      sse.send('log', entry(l));
    }
  } catch {
    // The container went away mid-stream; the status below says so.
  }
  if (!sse.closed) ended(false);
}
