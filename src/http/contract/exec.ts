import { z } from 'zod';
import { endpoint } from './endpoint.js';

const noNul = (s: string) => !s.includes('\u0000');
const word = z.string().min(1, 'must not be empty').max(4096).refine(noNul, 'must not contain NUL');

/** The subprotocol a client offers; the server always selects it. */
export const EXEC_PROTOCOL = 'slipway.exec.v1';
/** A dashboard session offers its CSRF token as a second subprotocol `csrf.<token>` (a browser cannot set headers). */
export const CSRF_PROTOCOL_PREFIX = 'csrf.';

export const execApi = {
  open: endpoint({
    method: 'get',
    path: '/api/services/:serviceId/exec',
    operationId: 'openExecSession',
    tag: 'Services',
    summary: 'A terminal into the service’s running container, over a WebSocket',
    description: [
      'A WebSocket upgrade (`Upgrade: websocket`, subprotocol `' + EXEC_PROTOCOL + '`): `docker exec` into the service’s current container. Binary frames are the terminal’s bytes both ways; text frames are JSON control messages: the client sends `{"type":"resize","cols":n,"rows":n}`, the server sends `{"type":"exit","exitCode":n|null}` and closes with code 1000.',
      'Without a TTY, each binary frame the server sends starts with one byte naming its stream (1 stdout, 2 stderr), and the client’s binary frames are the command’s stdin without a prefix; an empty binary frame from the client closes stdin.',
      'Write keys and the roles that may deploy. A dashboard session offers its CSRF token as the subprotocol `' + CSRF_PROTOCOL_PREFIX + '<token>` and must come from the same origin. At most 3 open sessions per service and 20 per installation (429 `too_many_sessions`); a session without input or output for 15 minutes is closed. Each session is recorded in the audit log (`ExecSessionStarted`, `ExecSessionEnded`), never what was typed or printed.',
    ].join('\n\n'),
    access: 'write',
    query: z.object({
      command: z
        .union([word, z.array(word).min(1).max(256)])
        .optional()
        .meta({ description: 'One value: a command line run with `sh -c`. Repeated (`command=ls&command=/app`): the command argument by argument. `sh` when not given.' }),
      task: z.string().regex(/^[a-z0-9]{1,64}$/, 'must be a Swarm task id').optional().meta({ description: 'Cluster mode: the task (its id, or the start of it) to open the terminal in; the first running task when not given.' }),
      tty: z.enum(['0', '1', 'true', 'false']).optional().meta({ description: '`1`: a terminal (stdout and stderr together, resizable). Default `0`.' }),
      cols: z.string().regex(/^\d{1,4}$/, 'must be 1-9999').transform(Number).pipe(z.number().int().min(1).max(1000)).optional().meta({ description: 'The terminal’s first width in columns (TTY only).' }),
      rows: z.string().regex(/^\d{1,4}$/, 'must be 1-9999').transform(Number).pipe(z.number().int().min(1).max(1000)).optional().meta({ description: 'The terminal’s first height in rows (TTY only).' }),
    }),
    upgrade: { protocol: 'websocket', description: 'Switching to the WebSocket protocol: the session runs until the command exits or either side closes.' },
    errors: [409, 426, 429, 502],
  }),
};

/** A resize message of the client; anything else it sends as text is refused. */
export const execControlMessage = z.object({ type: z.literal('resize'), cols: z.number().int().min(1).max(1000), rows: z.number().int().min(1).max(1000) });
