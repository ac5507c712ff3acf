import { spawn } from 'node:child_process';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { relayCgiOutput } from './cgi-response.js';

export interface BackendRequest {
  req: IncomingMessage;
  res: ServerResponse;
  /** The directory holding the repository, and the repository's path below it (`/<id>.git/info/refs`). */
  projectRoot: string;
  pathInfo: string;
  query: string;
  remoteUser: string;
  env: Record<string, string>;
  /** Given a socket that the process's hooks reach as their file descriptor 3 (pushes only). */
  onHookChannel?: (channel: Duplex) => void;
}

/**
 * `git http-backend` as CGI: the request body is streamed to it as it arrives (pushes can be large), and its
 * answer streamed back. Protocol v2 is passed on as a web server configured for Git passes it.
 */
export function serveGitBackend(request: BackendRequest): Promise<void> {
  const { req, res } = request;
  return new Promise((resolve) => {
    const cgi = spawn('git', ['http-backend'], {
      // Its own process group, so that stopping it stops the git processes and the hook it started.
      detached: true,
      stdio: ['pipe', 'pipe', 'ignore', ...(request.onHookChannel ? (['pipe'] as const) : [])],
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: request.projectRoot,
        GIT_PROJECT_ROOT: request.projectRoot,
        GIT_HTTP_EXPORT_ALL: '1',
        PATH_INFO: request.pathInfo,
        QUERY_STRING: request.query,
        REQUEST_METHOD: req.method ?? 'GET',
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        REMOTE_USER: request.remoteUser,
        REMOTE_ADDR: req.socket.remoteAddress ?? '',
        // What http-backend may hold in memory to inflate a gzipped request: git gzips only bodies that fit its
        // post buffer (1 MB by default), so this bounds what any key can make a request cost.
        GIT_HTTP_MAX_REQUEST_BUFFER: '16M',
        ...(req.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: String(req.headers['content-encoding']) } : {}),
        ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {}),
        ...request.env,
      },
    });
    if (request.onHookChannel) request.onHookChannel(cgi.stdio[3] as Duplex);
    // A client that goes away mid-push stops the push: http-backend, the receive-pack it started and its hook,
    // whose channel then closes and aborts the deployment (the ref will not move, and its objects go with it).
    const stop = () => {
      try {
        if (cgi.pid) process.kill(-cgi.pid, 'SIGTERM');
      } catch {
        // Already gone.
      }
    };
    res.on('close', () => {
      if (!res.writableFinished) stop();
    });
    // Both are pipes: `stdio` asks for them.
    const stdin = cgi.stdin!;
    const stdout = cgi.stdout!;
    stdin.on('error', () => undefined);
    req.pipe(stdin);
    // http-backend writes its headers before receive-pack reads the pack, and an HTTP/1 proxy written in Go
    // (Caddy) stops reading a request's body once the answer has begun: the answer waits for the whole request,
    // unless git has stopped reading it (a pack over receive.maxInputSize): then the rest is drained unread.
    const requestRead = new Promise<void>((done) => {
      req.once('end', done);
      req.once('close', done);
      cgi.once('exit', () => {
        req.unpipe(stdin);
        req.resume();
        done();
      });
    });
    const relay = relayCgiOutput(stdout, res, requestRead);
    cgi.on('error', () => undefined);
    cgi.on('close', async () => {
      await relay.released;
      if (!relay.headersDone() && !res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' }).end('git http-backend failed\n');
      else res.end();
      resolve();
    });
  });
}
