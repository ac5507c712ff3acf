import type { Duplex, Readable } from 'node:stream';
import type Docker from 'dockerode';
import { writeWithBackpressure } from './backpressure.js';
import type { ExecResult, ExecSpec } from './container-runtime.js';

/** How much of a command's stderr is kept for its error message. */
const STDERR_KEPT = 16 * 1024;

/**
 * The frames of the engine's multiplexed exec stream (8-byte header: stream, 0, 0, 0, length), split across
 * chunks as they arrive. Yields payloads in order, so a caller can wait for its sink between them.
 */
export class FrameSplitter {
  private pending: Buffer = Buffer.alloc(0);

  *push(chunk: Buffer): Generator<{ stream: number; payload: Buffer }> {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    while (this.pending.length >= 8) {
      const length = this.pending.readUInt32BE(4);
      if (this.pending.length < 8 + length) return;
      yield { stream: this.pending[0]!, payload: this.pending.subarray(8, 8 + length) };
      this.pending = this.pending.subarray(8 + length);
    }
  }
}


/**
 * Runs a command in a running container. Its stdout goes to `spec.stdout` with backpressure (the engine's
 * stream is read only as fast as the sink takes it, so a dump is never held in memory); `spec.stdin`, when
 * given, is piped in and closed at its end. The signal cuts the streams, which ends a command that writes.
 */
export async function execIn(docker: Docker, name: string, spec: ExecSpec, signal: AbortSignal): Promise<ExecResult> {
  signal.throwIfAborted();
  const exec = await docker.getContainer(name).exec({
    Cmd: spec.cmd,
    Env: Object.entries(spec.env ?? {}).map(([k, v]) => `${k}=${v}`),
    User: spec.user ?? '',
    AttachStdout: true,
    AttachStderr: true,
    AttachStdin: spec.stdin !== undefined,
    Tty: false,
  });
  const stream = (await exec.start({ hijack: true, stdin: spec.stdin !== undefined })) as Duplex;
  const cut = () => stream.destroy(new Error(String(signal.reason ?? 'aborted')));
  signal.addEventListener('abort', cut, { once: true });
  let stderr = '';
  // A source that fails cuts the exec stream, which ends the loop below with its error. Once the command's
  // output has ended the command is done: what it did not read is not waited for (a relay's client may keep
  // its connection open and silent).
  if (spec.stdin) feed(spec.stdin, stream).catch(() => undefined);
  try {
    const frames = new FrameSplitter();
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      for (const { stream: kind, payload } of frames.push(chunk)) {
        if (kind === 2) stderr = (stderr + payload.toString('utf8')).slice(-STDERR_KEPT);
        else if (spec.stdout) await writeWithBackpressure(spec.stdout, payload);
      }
    }
  } finally {
    signal.removeEventListener('abort', cut);
    stream.destroy();
  }
  signal.throwIfAborted();
  const { ExitCode } = await exec.inspect();
  return { exitCode: ExitCode ?? -1, stderr: stderr.trim() };
}

/** Pipes `source` into the exec's stdin and half-closes it at the end, so the command sees end of input. */
async function feed(source: Readable, target: Duplex): Promise<void> {
  try {
    for await (const chunk of source as AsyncIterable<Buffer>) await writeWithBackpressure(target, chunk);
    target.end();
  } catch (error) {
    target.destroy(error as Error);
    throw error;
  }
}
