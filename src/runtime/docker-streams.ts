import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { withoutRegistryAnswer } from '../outbound/outside-answers.js';
import type { OutputLine } from './container-runtime.js';

interface ProgressMessage {
  stream?: string;
  status?: string;
  progress?: string;
  id?: string;
  error?: string;
  errorDetail?: { message?: string };
}

/**
 * Reads the engine's JSON progress stream (build, pull). Output text goes to `onLine`; an `error`
 * message rejects, since the engine reports a failed step in the stream and not as an HTTP error. A
 * registry's answer the engine quotes in it (a base image pulled by a build) is left out.
 */
export async function followProgress(stream: Readable, onLine: (line: string) => void): Promise<void> {
  let pending = '';
  let text = '';
  const emitText = (chunk: string) => {
    text += chunk;
    const lines = text.split(/\r?\n/);
    text = lines.pop() ?? '';
    for (const line of lines) if (line.trim() !== '') onLine(line);
  };
  const handle = (raw: string) => {
    if (raw.trim() === '') return;
    let message: ProgressMessage;
    try {
      message = JSON.parse(raw) as ProgressMessage;
    } catch {
      emitText(raw + '\n');
      return;
    }
    if (message.error) throw new Error(withoutRegistryAnswer(message.errorDetail?.message ?? message.error));
    if (message.stream) emitText(message.stream);
    // Pull progress bars repeat many times a second; only the state changes are worth a line.
    else if (message.status && !message.progress) emitText(`${message.id ? `${message.id}: ` : ''}${message.status}\n`);
  };
  // A character's bytes may arrive in two chunks: decoded one by one, it would become two U+FFFD.
  const decoder = new StringDecoder('utf8');
  for await (const chunk of stream) {
    pending += typeof chunk === 'string' ? chunk : decoder.write(chunk as Buffer);
    const parts = pending.split('\n');
    pending = parts.pop() ?? '';
    for (const part of parts) handle(part);
  }
  handle(pending + decoder.end());
  if (text.trim() !== '') onLine(text);
}

/** Splits Docker's multiplexed log frames (8-byte header: stream type, size) into lines. */
export class LogDemuxer {
  private buffer: Buffer = Buffer.alloc(0);
  private partial: Record<'stdout' | 'stderr', string> = { stdout: '', stderr: '' };
  // A program's write (one frame) may end inside a character; the rest comes in its next frame.
  private readonly decoders = { stdout: new StringDecoder('utf8'), stderr: new StringDecoder('utf8') };

  constructor(private readonly timestamps: boolean) {}

  push(chunk: Buffer): OutputLine[] {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    const out: OutputLine[] = [];
    while (this.buffer.length >= 8) {
      const size = this.buffer.readUInt32BE(4);
      if (this.buffer.length < 8 + size) break;
      const stream = this.buffer[0] === 2 ? 'stderr' : 'stdout';
      const text = this.partial[stream] + this.decoders[stream].write(this.buffer.subarray(8, 8 + size));
      this.buffer = this.buffer.subarray(8 + size);
      const lines = text.split('\n');
      this.partial[stream] = lines.pop() ?? '';
      for (const line of lines) out.push(this.parse(stream, line));
    }
    return out;
  }

  end(): OutputLine[] {
    const rest = (['stdout', 'stderr'] as const)
      .map((s) => [s, this.partial[s] + this.decoders[s].end()] as const)
      .filter(([, text]) => text !== '')
      .map(([s, text]) => this.parse(s, text));
    this.partial = { stdout: '', stderr: '' };
    return rest;
  }

  private parse(stream: 'stdout' | 'stderr', raw: string): OutputLine {
    const line = raw.replace(/\r$/, '');
    if (!this.timestamps) return { stream, line, time: null };
    const space = line.indexOf(' ');
    const stamp = space > 0 ? line.slice(0, space) : '';
    return /^\d{4}-\d\d-\d\dT/.test(stamp) ? { stream, line: line.slice(space + 1), time: stamp } : { stream, line, time: null };
  }
}
