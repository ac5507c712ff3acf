import type { Duplex } from 'node:stream';
import type Docker from 'dockerode';
import { writeWithBackpressure } from './backpressure.js';
import type { ShellOutput, ShellSession, ShellSpec } from './container-runtime.js';
import { FrameSplitter } from './docker-exec.js';

/**
 * The engine has no way to kill an exec, and its process outlives a closed connection. So the command runs under
 * a shell that first prints its own pid (inside the container) on a line of its own, then becomes the command
 * (`exec`): the pid is the command's, and `kill` ends it and every process below it with a second exec.
 */
const PID_MARK = 'slipway-exec-pid ';
const WRAPPER = `printf '${PID_MARK}%s\\n' "$$"; exec "$@"`;

/**
 * Stops, then kills, the process `$1` and all its descendants, found through /proc with shell built-ins only
 * (an image may have no ps or pkill). Stopped first, so none forks a child the kill would miss.
 */
const KILL_TREE = `root=$1; pairs=
for d in /proc/[0-9]*; do
  read -r line < "$d/stat" 2>/dev/null || continue
  rest=\${line##*) }; set -- $rest; pairs="$pairs \${d#/proc/}:$2"
done
tree=" $root "; grown=1
while [ $grown = 1 ]; do grown=0
  for pp in $pairs; do p=\${pp%%:*}; parent=\${pp#*:}
    case "$tree" in *" $p "*) continue;; esac
    case "$tree" in *" $parent "*) tree="$tree$p "; grown=1;; esac
  done
done
kill -STOP $tree 2>/dev/null; kill -KILL $tree 2>/dev/null; true`;

/** Reads the pid line off the start of the output; everything else passes through unchanged. */
export class PidLine {
  pid: number | null = null;
  private pending: Buffer | null = Buffer.alloc(0);

  /** The part of `chunk` that is the command's own output. */
  take(chunk: Buffer): Buffer {
    if (this.pending === null) return chunk;
    const seen = Buffer.concat([this.pending, chunk]);
    const end = seen.indexOf(0x0a);
    const text = seen.subarray(0, end < 0 ? seen.length : end).toString('latin1');
    if (!PID_MARK.startsWith(text.slice(0, PID_MARK.length)) || (end < 0 && seen.length > 64)) return this.passThrough(seen);
    if (end < 0) {
      this.pending = seen;
      return Buffer.alloc(0);
    }
    const pid = /^slipway-exec-pid (\d+)\r?$/.exec(text)?.[1];
    if (!pid) return this.passThrough(seen);
    this.pid = Number(pid);
    this.pending = null;
    return seen.subarray(end + 1);
  }

  /** What arrived before the output ended without a pid line (the wrapper could not run). */
  rest(): Buffer {
    const rest = this.pending ?? Buffer.alloc(0);
    this.pending = null;
    return rest;
  }

  private passThrough(seen: Buffer): Buffer {
    this.pending = null;
    return seen;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Opens an interactive command in a running container (see ShellSession). */
export async function openShellIn(docker: Docker, name: string, spec: ShellSpec): Promise<ShellSession> {
  const container = docker.getContainer(name);
  const exec = await container.exec({
    Cmd: ['sh', '-c', WRAPPER, 'slipway-exec', ...spec.cmd],
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
    Tty: spec.tty,
    Env: spec.tty ? ['TERM=xterm-256color'] : [],
  });
  const stream = (await exec.start({ hijack: true, stdin: true, Tty: spec.tty })) as Duplex;
  const pidLine = new PidLine();
  let killed: Promise<void> | null = null;

  async function* output(): AsyncGenerator<ShellOutput> {
    const frames = spec.tty ? null : new FrameSplitter();
    try {
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        const parts = frames ? [...frames.push(chunk)].map((f) => ({ stream: f.stream === 2 ? ('stderr' as const) : ('stdout' as const), data: f.payload })) : [{ stream: 'stdout' as const, data: chunk }];
        for (const part of parts) {
          const data = part.stream === 'stdout' ? pidLine.take(part.data) : part.data;
          if (data.length > 0) yield { stream: part.stream, data };
        }
      }
    } catch (error) {
      // A connection the kill cut is the end of the output, not a failure.
      if (!killed) throw error;
    }
    const rest = pidLine.rest();
    if (rest.length > 0) yield { stream: 'stdout', data: rest };
  }

  return {
    output: output(),
    write: (data) => writeWithBackpressure(stream, data, 'the command has ended'),
    closeInput: () => void stream.end(),
    async resize({ cols, rows }) {
      if (spec.tty) await exec.resize({ h: rows, w: cols });
    },
    async exitCode() {
      // The output ends a moment before the engine records the exit.
      for (let i = 0; i < 20; i++) {
        const state = await exec.inspect();
        if (!state.Running) return state.ExitCode ?? null;
        await sleep(50);
      }
      return null;
    },
    kill() {
      killed ??= (async () => {
        try {
          const state = await exec.inspect();
          if (state.Running && pidLine.pid !== null) {
            const killer = await container.exec({ Cmd: ['sh', '-c', KILL_TREE, 'slipway-kill', String(pidLine.pid)], AttachStdout: true, AttachStderr: true });
            const done = (await killer.start({ hijack: true, stdin: false })) as Duplex;
            done.resume();
            await new Promise<void>((resolve) => done.once('close', resolve).once('end', resolve).once('error', () => resolve()));
          }
        } finally {
          stream.destroy();
        }
      })();
      return killed;
    },
  };
}
