import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface ReceivedRequest {
  method: string;
  /** Path with its query string. */
  path: string;
  headers: IncomingHttpHeaders;
  /** The body as sent, to search for what must never be in it. */
  raw: string;
  /** The body parsed as JSON, or null. */
  json: unknown;
}

/** What the fake answers a request with: JSON with a status, text, no answer at all, or headers then silence. */
export type FakeAnswer = { status?: number; json: unknown } | { status?: number; text: string } | 'hang' | 'hang-after-headers';

export interface FakeAiServer {
  /** http://127.0.0.1:<port> */
  origin: string;
  requests: ReceivedRequest[];
  /** Answers for the next requests, in order; once used up, `otherwise` answers. */
  queue(...answers: FakeAnswer[]): void;
  otherwise: (request: ReceivedRequest) => FakeAnswer;
  reset(): void;
  close(): Promise<void>;
}

/** A local HTTP server on a free loopback port that records every request and answers as told. */
export async function startFakeAiServer(otherwise: (request: ReceivedRequest) => FakeAnswer): Promise<FakeAiServer> {
  const sockets = new Set<Socket>();
  let answers: FakeAnswer[] = [];
  const fake: FakeAiServer = {
    origin: '',
    requests: [],
    queue: (...next) => answers.push(...next),
    otherwise,
    reset() {
      answers = [];
      fake.requests.length = 0;
      fake.otherwise = otherwise;
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let json: unknown = null;
      try {
        json = raw ? JSON.parse(raw) : null;
      } catch {
        json = null;
      }
      const received: ReceivedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, raw, json };
      fake.requests.push(received);
      const answer = answers.shift() ?? fake.otherwise(received);
      if (answer === 'hang') return;
      if (answer === 'hang-after-headers') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"choices": [');
        return;
      }
      const status = answer.status ?? 200;
      if ('json' in answer) {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(answer.json));
      } else {
        res.writeHead(status, { 'content-type': 'text/plain' });
        res.end(answer.text);
      }
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}

/** An OpenAI chat-completions answer whose message content is `content`. */
export const openAiCompletion = (content: string | null): FakeAnswer => ({
  json: {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'gpt-test',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  },
});

/** An Anthropic Messages answer made of these content blocks. */
export const anthropicMessage = (...content: Record<string, unknown>[]): FakeAnswer => ({
  json: {
    id: 'msg_test',
    type: 'message',
    role: 'assistant',
    model: 'claude-test',
    content,
    stop_reason: 'end_turn',
    usage: { input_tokens: 1, output_tokens: 1 },
  },
});

/** The fake OpenAI-compatible API: models listed at GET /v1/models, anything else unknown. */
export const startFakeOpenAi = () =>
  startFakeAiServer((request) =>
    request.method === 'GET' && request.path === '/v1/models'
      ? { json: { object: 'list', data: [{ id: 'gpt-test', object: 'model', owned_by: 'test' }, { id: 'llama3.1:8b', object: 'model', owned_by: 'library' }] } }
      : { status: 404, json: { error: { message: `unknown route ${request.method} ${request.path}`, type: 'invalid_request_error' } } },
  );

/** The fake Anthropic API: models listed at GET /v1/models, anything else unknown. */
export const startFakeAnthropic = () =>
  startFakeAiServer((request) =>
    request.method === 'GET' && request.path.startsWith('/v1/models')
      ? {
          json: {
            data: [
              { type: 'model', id: 'claude-test-1', display_name: 'Claude Test 1', created_at: '2025-01-01T00:00:00Z' },
              { type: 'model', id: 'claude-test-2', display_name: 'Claude Test 2', created_at: '2025-01-01T00:00:00Z' },
            ],
            has_more: false,
            first_id: 'claude-test-1',
            last_id: 'claude-test-2',
          },
        }
      : { status: 404, json: { type: 'error', error: { type: 'not_found_error', message: `unknown route ${request.path}` } } },
  );
