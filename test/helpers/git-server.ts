import { execFileSync, spawn } from 'node:child_process';
import { linkSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { relayCgiOutput } from '../../src/git/cgi-response.js';

/** A file's content, a symbolic link committed as such, or a hard link to a file on this machine (git commits its content). */
export type RepoEntry = string | { symlink: string } | { hardLinkTo: string };

export interface GitServer {
  /** What SLIPWAY_GIT_BASE_URL should be. */
  baseUrl: string;
  /** Every request line and Authorization header seen, to prove where a token travelled. */
  requests: { url: string; authorization: string | null }[];
  /** Creates (or replaces the content of) `owner/name` on branch `main` (or another); returns the commit. */
  push(fullName: string, files: Record<string, RepoEntry>, branch?: string): string;
  /** Adds a commit with these files (the others unchanged) on top of `branch` of an existing repository; returns it. */
  commit(fullName: string, files: Record<string, string>, branch?: string, message?: string): string;
  /**
   * Holds every request for `owner/name` unanswered (a clone then hangs, its git process alive) until the
   * returned function is called, which serves them, or the server closes, which refuses them.
   */
  hold(fullName: string): () => void;
  /** How many requests for `owner/name` are being held right now. */
  held(fullName: string): number;
  close(): Promise<void>;
}

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@example.com', ...args], { cwd, encoding: 'utf8' }).trim();

/**
 * Real smart-HTTP Git (`git http-backend` as CGI) behind a small Node server. Repositories listed in
 * `tokens` answer only to `Authorization: Basic x-access-token:<token>`, as hosted Git providers do.
 */
export async function startGitServer(tokens: Record<string, string> = {}): Promise<GitServer> {
  const root = mkdtempSync(join(tmpdir(), 'slipway-git-'));
  const requests: GitServer['requests'] = [];
  /** Held requests per repository: each entry answers its request, served (true) or refused. */
  const holds = new Map<string, ((serve: boolean) => void)[]>();
  let closing = false;
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://git');
    requests.push({ url: req.url ?? '', authorization: req.headers.authorization ?? null });
    const repo = /^\/([^/]+\/[^/]+?)(\.git)?\//.exec(url.pathname)?.[1];
    const held = repo ? holds.get(repo) : undefined;
    if (held) held.push((serve) => (serve && !closing ? answer(req, res, url, repo) : res.writeHead(503).end('server closed\n')));
    else answer(req, res, url, repo);
  });
  const answer = (req: IncomingMessage, res: ServerResponse, url: URL, repo: string | undefined) => {
    const token = repo ? tokens[repo] : undefined;
    if (token && req.headers.authorization !== `Basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`) {
      res.writeHead(401, { 'www-authenticate': 'Basic realm="git"' }).end('authentication required\n');
      return;
    }
    const path = url.pathname.replace(/^\/([^/]+\/[^/]+?)(?:\.git)?\//, '/$1.git/');
    const cgi = spawn('git', ['http-backend'], {
      env: {
        PATH: process.env.PATH,
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: '1',
        PATH_INFO: path,
        QUERY_STRING: url.search.slice(1),
        REQUEST_METHOD: req.method ?? 'GET',
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        REMOTE_USER: 'test',
        REMOTE_ADDR: '127.0.0.1',
        GIT_HTTP_MAX_REQUEST_BUFFER: '100M',
        ...(req.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: req.headers['content-encoding'] } : {}),
        // As a web server configured for Git passes it: clients then speak protocol v2, as with hosted providers.
        ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {}),
      },
    });
    req.pipe(cgi.stdin);
    relayCgiOutput(cgi.stdout, res);
    cgi.on('close', () => res.end());
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    push(fullName, files, branch = 'main') {
      const work = mkdtempSync(join(tmpdir(), 'slipway-work-'));
      git(work, 'init', '-q', '-b', branch);
      for (const [name, entry] of Object.entries(files)) {
        const path = join(work, name);
        mkdirSync(dirname(path), { recursive: true });
        if (typeof entry === 'string') writeFileSync(path, entry);
        else if ('symlink' in entry) symlinkSync(entry.symlink, path);
        else linkSync(entry.hardLinkTo, path);
      }
      git(work, 'add', '-A');
      git(work, 'commit', '-q', '-m', 'deploy me');
      const bare = join(root, `${fullName}.git`);
      rmSync(bare, { recursive: true, force: true });
      mkdirSync(dirname(bare), { recursive: true });
      git(root, 'clone', '-q', '--bare', work, bare);
      const sha = git(work, 'rev-parse', 'HEAD');
      rmSync(work, { recursive: true, force: true });
      return sha;
    },
    commit(fullName, files, branch = 'main', message = 'update') {
      const work = mkdtempSync(join(tmpdir(), 'slipway-work-'));
      git(work, 'clone', '-q', '--branch', branch, join(root, `${fullName}.git`), '.');
      for (const [name, content] of Object.entries(files)) {
        mkdirSync(dirname(join(work, name)), { recursive: true });
        writeFileSync(join(work, name), content);
      }
      git(work, 'add', '-A');
      git(work, 'commit', '-q', '-m', message);
      git(work, 'push', '-q', 'origin', branch);
      const sha = git(work, 'rev-parse', 'HEAD');
      rmSync(work, { recursive: true, force: true });
      return sha;
    },
    hold(fullName) {
      const held: ((serve: boolean) => void)[] = [];
      holds.set(fullName, held);
      return () => {
        holds.delete(fullName);
        for (const release of held.splice(0)) release(true);
      };
    },
    held: (fullName) => holds.get(fullName)?.length ?? 0,
    async close() {
      closing = true;
      for (const held of holds.values()) for (const release of held.splice(0)) release(false);
      holds.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(root, { recursive: true, force: true });
    },
  };
}
