import type { components } from '../../shared/api-types.js';
import { answer, CliError, type Api } from './client.js';
import { readEvents } from './event-stream.js';
import { out } from './output.js';

type Run = components['schemas']['JobRun'];
type LogLine = components['schemas']['JobRunLogLine'];

const RECONNECTS = 5;

/**
 * Follows a job run's stream to its end: stdout lines on stdout, stderr and Slipway's own lines on stderr (with
 * `--json`, each event as a JSON line). Answers the command's exit code, or 1 when it never exited by itself
 * (timed out, canceled, could not start), saying why.
 */
export async function followJobRun(api: Api, runId: string, o: { json?: boolean }): Promise<number> {
  let last = 0;
  let ended: Run | null = null;
  for (let attempt = 0; ended === null; attempt++) {
    try {
      const body = await answer(api.GET('/api/job-runs/{runId}/stream', { params: { path: { runId } }, parseAs: 'stream' }));
      if (!body) throw new CliError('the stream answered without a body');
      for await (const { event, data } of readEvents(body)) {
        if (event === 'end') ended = (data as { run: Run }).run;
        const lines = event === 'snapshot' ? (data as LogLine[]) : event === 'log' ? [data as LogLine] : [];
        for (const line of lines.filter((l) => l.id > last)) {
          last = line.id;
          if (o.json) out(JSON.stringify({ event: 'log', data: line }));
          else if (line.stream === 'stdout') out(line.line);
          else process.stderr.write(`${line.line}\n`);
        }
      }
      if (ended === null) {
        const { run } = await answer(api.GET('/api/job-runs/{runId}', { params: { path: { runId } } }));
        if (run.status !== 'queued' && run.status !== 'running') ended = run;
        else if (attempt >= RECONNECTS) throw new CliError(`the stream of run ${runId} closed while it is ${run.status}: slipway jobs runs shows how it ends`);
      }
    } catch (error) {
      if (error instanceof CliError || attempt >= RECONNECTS) throw error;
      await new Promise((r) => setTimeout(r, 500 * (attempt + 1)));
    }
  }
  if (o.json) out(JSON.stringify({ run: ended }));
  if (ended.status === 'succeeded' || (ended.status === 'failed' && ended.exitCode !== null)) return ended.exitCode ?? 0;
  if (!o.json) process.stderr.write(`slipway: run ${ended.id} ${ended.status}${ended.reason ? `: ${ended.reason}` : ''}\n`);
  return 1;
}
