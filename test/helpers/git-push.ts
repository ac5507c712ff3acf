import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** The environment of a user's git: no system configuration, no prompt. */
export const gitEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tmpdir(), GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1' };

/** A synchronous git in a work tree (never against the server under test, which runs in this process). */
export const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=dev', '-c', 'user.email=dev@example.com', ...args], { cwd, env: gitEnv, encoding: 'utf8' }).trim();

/** A real `git push`: its exit code and everything it printed on stderr (where `remote:` lines go). */
export function push(cwd: string, remote: string, refspec: string, config: string[] = []): Promise<{ code: number; stderr: string; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn('git', [...config.flatMap((c) => ['-c', c]), 'push', '--porcelain', remote, refspec], { cwd, env: gitEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.on('close', (code) => resolve({ code: code ?? -1, stderr, stdout }));
  });
}

/** Writes `files` and commits them; answers the commit. */
export function commit(work: string, files: Record<string, string>, message: string): string {
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(dirname(join(work, name)), { recursive: true });
    writeFileSync(join(work, name), content);
  }
  git(work, 'add', '-A');
  git(work, 'commit', '-q', '-m', message);
  return git(work, 'rev-parse', 'HEAD');
}

/** Where `ref` points on the remote ('' when it has no such ref); asynchronous, as the server runs in this process. */
export function refOf(remote: string, ref: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', ['ls-remote', remote, ref], { env: gitEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.resume();
    child.on('close', (code) => (code === 0 ? resolve(out.split('\t')[0]!.trim()) : reject(new Error(`git ls-remote exited with ${code}`))));
  });
}

/** What the server said during a push, `remote: ` taken off. */
export const remoteLines = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('remote: ')).map((l) => l.slice('remote: '.length).trim());
