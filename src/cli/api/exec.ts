import { WebSocket, type RawData } from 'ws';
import { apiClient, CliError } from './client.js';
import { findService } from './resolve.js';

interface ExecOptions {
  project?: string;
  tty?: boolean;
  task?: string;
}

/** What `slipway exec` exits with when the session ended without the command's exit code. */
const NO_EXIT_CODE = 255;
const HIGH_WATER_BYTES = 1024 * 1024;

/** The session's address: the API's, as ws:// or wss://, with the command and the terminal's size. */
function sessionUrl(base: string, serviceId: string, command: string[], tty: boolean, task: string | undefined): string {
  const url = new URL(`${base.replace(/\/+$/, '')}/api/services/${serviceId}/exec`);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  for (const word of command) url.searchParams.append('command', word);
  if (tty) {
    url.searchParams.set('tty', '1');
    url.searchParams.set('cols', String(process.stdout.columns || 80));
    url.searchParams.set('rows', String(process.stdout.rows || 24));
  }
  if (task) url.searchParams.set('task', task);
  return url.toString();
}

/** The API's refusal of the upgrade, in its own words. */
function refusal(ws: WebSocket): Promise<never> {
  return new Promise((_, reject) => {
    ws.once('unexpected-response', (_request, response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      response.on('end', () => {
        let message = `HTTP ${response.statusCode}`;
        try {
          const body = JSON.parse(text) as { error?: { code?: string; message?: string } };
          if (body.error?.message) message = `${body.error.message} (${body.error.code}, HTTP ${response.statusCode})`;
        } catch {
          // Not the API's error body: the status says enough.
        }
        reject(new CliError(message));
      });
    });
    ws.once('error', (error) => reject(new CliError(`cannot open a session: ${error.message}`)));
  });
}

/**
 * Runs the session until it ends; answers the command's exit code. With a terminal, this terminal is put in raw
 * mode (every key goes to the container), follows its size, and is put back as it was however the session ends.
 */
export async function execInService(ref: string, command: string[], o: ExecOptions): Promise<number> {
  const { api, url, key } = apiClient();
  const service = await findService(api, ref, o.project);
  const interactive = command.length === 0 && process.stdin.isTTY === true;
  const tty = o.tty === true || interactive;
  const ws = new WebSocket(sessionUrl(url, service.id, command, tty, o.task), ['slipway.exec.v1'], { headers: { authorization: `Bearer ${key}` }, perMessageDeflate: false });
  // Before the handshake ends: the first output may come in the same packet as it, and is read at once.
  let exitCode: number | null = null;
  ws.on('message', (data: RawData, isBinary: boolean) => {
    const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
    if (!isBinary) {
      const message = JSON.parse(bytes.toString('utf8')) as { type?: string; exitCode?: number | null };
      if (message.type === 'exit') exitCode = message.exitCode ?? null;
      return;
    }
    const [target, payload] = tty ? [process.stdout, bytes] : [bytes[0] === 2 ? process.stderr : process.stdout, bytes.subarray(1)];
    // A terminal that does not keep up holds the session's output back, all the way to the command.
    if (!target.write(payload)) {
      ws.pause();
      target.once('drain', () => ws.resume());
    }
  });
  const closing = new Promise<{ code: number; reason: string }>((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString('utf8') })));
  await Promise.race([new Promise((resolve) => ws.once('open', resolve)), refusal(ws)]);

  const stdin = process.stdin;
  const raw = tty && stdin.isTTY === true;
  if (raw) stdin.setRawMode(true);
  const resize = () => ws.readyState === ws.OPEN && ws.send(JSON.stringify({ type: 'resize', cols: process.stdout.columns, rows: process.stdout.rows }));
  if (raw) process.stdout.on('resize', resize);
  // A paste larger than the socket takes at once waits for it, instead of piling up here.
  const input = (chunk: Buffer) => {
    ws.send(chunk, { binary: true }, () => ws.bufferedAmount < HIGH_WATER_BYTES && stdin.isPaused() && stdin.resume());
    if (ws.bufferedAmount >= HIGH_WATER_BYTES) stdin.pause();
  };
  stdin.on('data', input);
  // The end of this side's input ends the command's (an empty binary frame).
  stdin.once('end', () => ws.readyState === ws.OPEN && ws.send(Buffer.alloc(0), { binary: true }));
  stdin.resume();

  const closed = await closing;
  stdin.off('data', input);
  stdin.pause();
  if (raw) {
    process.stdout.off('resize', resize);
    stdin.setRawMode(false);
  }
  if (exitCode !== null) return exitCode;
  if (closed.code !== 1000) process.stderr.write(`\r\nslipway: the session ended: ${closed.reason || `WebSocket close code ${closed.code}`}\n`);
  return NO_EXIT_CODE;
}
