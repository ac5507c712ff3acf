import type { WebSocket, RawData } from 'ws';
import type { ExecEndReason } from '../../../commands/exec-session/events.js';
import type { ShellSession } from '../../runtime/container-runtime.js';
import { execControlMessage } from '../contract/exec.js';

/** Past this much unsent output, reading the command's output waits until the client has taken it. */
const HIGH_WATER_BYTES = 1024 * 1024;
/** How long a client has to answer the close when Slipway stops. */
const SHUTDOWN_GRACE_MS = 1000;
/** Stream bytes of a frame without a TTY (as Kubernetes' channel protocol): 1 stdout, 2 stderr. */
const STREAM_BYTE = { stdout: 1, stderr: 2 } as const;

export interface BridgeOptions {
  tty: boolean;
  idleMs: number;
  /** Called once, when the session has ended, however it ended. */
  onEnd(ended: { exitCode: number | null; reason: ExecEndReason }): void;
}

/** What ends a bridge from outside (Slipway stopping); resolves once its command is killed. */
export interface OpenBridge {
  shutdown(): Promise<void>;
}

/**
 * Joins a client's WebSocket and a command in a container: binary frames are the terminal's bytes both ways, text
 * frames JSON control messages (resize from the client, exit from the server). Either side ending ends the other:
 * the command's exit closes the socket (1000) after an `exit` message; a closed socket, an idle session or a
 * shutdown kills the command.
 */
export function bridgeTerminal(ws: WebSocket, shell: ShellSession, options: BridgeOptions): OpenBridge {
  let ended = false;
  let killed: Promise<void> = Promise.resolve();
  let idle: NodeJS.Timeout | undefined;
  const touch = () => {
    clearTimeout(idle);
    idle = setTimeout(() => finish('idle', null, 4000, 'idle too long'), options.idleMs);
  };

  function finish(reason: ExecEndReason, exitCode: number | null, code: number, text: string) {
    if (ended) return;
    ended = true;
    clearTimeout(idle);
    if (reason !== 'exited') killed = shell.kill().catch(() => undefined);
    if (ws.readyState === ws.OPEN) {
      if (reason === 'exited') ws.send(JSON.stringify({ type: 'exit', exitCode }));
      ws.close(code, text);
    }
    options.onEnd({ exitCode, reason });
  }

  // Input and resizes in order, one at a time: while the command does not read, the socket is not read either.
  let writing: Promise<void> = Promise.resolve();
  const inTurn = (step: () => unknown) => {
    ws.pause();
    writing = writing
      .then(step)
      .then(
        () => ws.resume(),
        () => undefined,
      );
  };
  ws.on('message', (data: RawData, isBinary: boolean) => {
    if (ended) return;
    touch();
    const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
    if (!isBinary) return control(bytes.toString('utf8'));
    if (bytes.length === 0) return inTurn(() => shell.closeInput());
    inTurn(() => shell.write(bytes));
  });

  function control(text: string) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = null;
    }
    const message = execControlMessage.safeParse(parsed);
    if (!message.success) return finish('failed', null, 1008, 'text frames are JSON control messages: {"type":"resize","cols":n,"rows":n}');
    // In line with the input (what is typed after a resize sees the new size), and one at a time: a client
    // sending resizes without end waits for each, like its input.
    if (options.tty) inTurn(() => shell.resize({ cols: message.data.cols, rows: message.data.rows }).catch(() => undefined));
  }

  ws.on('close', () => finish('closed', null, 1000, ''));
  ws.on('error', () => finish('closed', null, 1011, ''));

  (async () => {
    touch();
    try {
      for await (const part of shell.output) {
        if (ended) break;
        touch();
        const frame = options.tty ? part.data : Buffer.concat([Buffer.of(STREAM_BYTE[part.stream]), part.data]);
        const sent = new Promise<void>((resolve) => ws.send(frame, { binary: true }, () => resolve()));
        if (ws.bufferedAmount > HIGH_WATER_BYTES) await sent;
      }
      if (ended) return;
      finish('exited', await shell.exitCode(), 1000, 'the command ended');
    } catch {
      finish('failed', null, 1011, 'the connection to the container broke');
    }
  })();

  return {
    shutdown() {
      finish('shutdown', null, 1001, 'Slipway is stopping');
      // A client that does not answer the close (or reads nothing) must not hold the server's stop for long.
      setTimeout(() => ws.terminate(), SHUTDOWN_GRACE_MS).unref();
      return killed;
    },
  };
}
