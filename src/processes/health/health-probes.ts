import { request } from 'node:http';
import { connect } from 'node:net';
import { parseExpectStatus, statusAccepted, type HealthCheck } from '../../../commands/service/health-check.js';
import type { ProbeResult } from '../../../commands/service/events.js';
import type { ContainerRuntime } from '../../runtime/container-runtime.js';

/** Headers beyond this end the probe: an app cannot make Slipway buffer more for it. */
const MAX_HEADER_BYTES = 8 * 1024;
/** How much of a failing command's stderr goes into the detail. */
const STDERR_TAIL = 300;

export interface ProbeTarget {
  check: HealthCheck;
  container: string;
  /** The container's address on its project network (see ContainerState.address). */
  address: string | null;
  /** The service's internal port, used when the check names none. */
  defaultPort: number;
}

const codeOf = (error: unknown) => (error as NodeJS.ErrnoException | undefined)?.code ?? '';

function connectionDetail(error: unknown, port: number): string {
  const code = codeOf(error);
  if (code === 'ECONNREFUSED') return `connection refused on port ${port}`;
  if (code === 'ECONNRESET' || code === 'EPIPE') return `connection reset on port ${port}`;
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return `the container's address is unreachable (${code})`;
  if (code === 'HPE_HEADER_OVERFLOW') return `the answer's headers exceed ${MAX_HEADER_BYTES / 1024} KiB`;
  if (code.startsWith('HPE_')) return `not an HTTP answer on port ${port}`;
  return `${code || 'error'} on port ${port}`;
}

/**
 * One GET, bounded in time (a deadline over connect, headers and all) and in bytes (headers capped, the body
 * never read): a hostile app that trickles, never ends or floods its headers costs at most `timeoutMs`.
 */
export function probeHttp(host: string, port: number, path: string, expect: string, timeoutMs: number): Promise<ProbeResult> {
  const accepted = parseExpectStatus(expect) ?? [[200, 399]];
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: ProbeResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve(result);
    };
    const req = request(
      { host, port, path, method: 'GET', agent: false, maxHeaderSize: MAX_HEADER_BYTES, headers: { host: 'localhost', 'user-agent': 'slipway-health', connection: 'close' } },
      (res) => {
        const status = res.statusCode ?? 0;
        res.destroy();
        const ok = statusAccepted(accepted, status);
        finish({ ok, detail: `HTTP ${status} from ${path}${ok ? '' : ` (expected ${expect})`}` });
      },
    );
    const timer = setTimeout(() => finish({ ok: false, detail: `no answer from ${path} on port ${port} within ${timeoutMs / 1000} s` }), timeoutMs);
    req.on('error', (error) => finish({ ok: false, detail: connectionDetail(error, port) }));
    req.end();
  });
}

/** A TCP connection that opens within the deadline; closed at once. */
export function probeTcp(host: string, port: number, timeoutMs: number): Promise<ProbeResult> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: ProbeResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const socket = connect({ host, port });
    const timer = setTimeout(() => finish({ ok: false, detail: `no connection on port ${port} within ${timeoutMs / 1000} s` }), timeoutMs);
    socket.on('connect', () => finish({ ok: true, detail: `port ${port} accepts connections` }));
    socket.on('error', (error) => finish({ ok: false, detail: connectionDetail(error, port) }));
  });
}

/** The command through `docker exec`, so the image needs nothing but the command itself. */
export async function probeCommand(runtime: ContainerRuntime, container: string, command: string[], timeoutMs: number): Promise<ProbeResult> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error('health check timeout')), timeoutMs);
  try {
    const { exitCode, stderr } = await runtime.exec(container, { cmd: command }, controller.signal);
    if (exitCode === 0) return { ok: true, detail: `${command[0]} exited with code 0` };
    const tail = stderr.slice(-STDERR_TAIL).trim();
    return { ok: false, detail: `exit code ${exitCode}${tail ? `: ${tail}` : ''}` };
  } catch (error) {
    if (controller.signal.aborted) return { ok: false, detail: `${command[0]} did not end within ${timeoutMs / 1000} s` };
    return { ok: false, detail: `${command[0]} could not run: ${error instanceof Error ? error.message : String(error)}` };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * One probe from Slipway itself: HTTP and TCP go to the container's address on its project network (this host
 * routes to bridge networks; a published port would not do: Docker's proxy accepts before the app listens, and
 * workers publish nothing), a command runs inside the container.
 */
export function probe(runtime: ContainerRuntime, target: ProbeTarget): Promise<ProbeResult> {
  const { check } = target;
  const timeoutMs = check.timeoutSeconds * 1000;
  if (check.type === 'command') return probeCommand(runtime, target.container, check.command, timeoutMs);
  const port = check.port ?? target.defaultPort;
  if (target.address === null) return Promise.resolve({ ok: false, detail: 'the container has no address on its network' });
  if (check.type === 'tcp') return probeTcp(target.address, port, timeoutMs);
  return probeHttp(target.address, port, check.path, check.expectStatus, timeoutMs);
}
