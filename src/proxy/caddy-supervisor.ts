import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../logger.js';
import { CaddyAdminClient } from './caddy-admin-client.js';

export interface CaddySupervisorOptions {
  binary: string;
  adminListen: string;
  workDir: string;
  log: Logger;
  /** Called after every (re)start, once the admin API answers, to push the current configuration. */
  onReady: () => Promise<void>;
}

/** Runs Caddy as a child process and restarts it with backoff when it exits. */
export class CaddySupervisor {
  private child: ChildProcess | null = null;
  private stopping = false;
  private backoffMs = 500;
  unavailable: string | null = null;
  readonly client: CaddyAdminClient;

  constructor(private readonly options: CaddySupervisorOptions) {
    this.client = new CaddyAdminClient(`http://${options.adminListen}`);
  }

  async start(): Promise<void> {
    mkdirSync(this.options.workDir, { recursive: true });
    const configPath = join(this.options.workDir, 'bootstrap.json');
    writeFileSync(configPath, JSON.stringify({ admin: { listen: this.options.adminListen } }));
    await this.spawnCaddy(configPath);
  }

  private async spawnCaddy(configPath: string): Promise<void> {
    const { binary, workDir, log } = this.options;
    const child = spawn(binary, ['run', '--config', configPath], {
      env: { ...process.env, HOME: workDir, XDG_DATA_HOME: join(workDir, 'data'), XDG_CONFIG_HOME: join(workDir, 'config') },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const spawned = await new Promise<boolean>((resolve) => {
      child.once('spawn', () => resolve(true));
      child.once('error', (error) => {
        this.unavailable = `caddy could not be started (${binary}): ${error.message}`;
        log.warn(this.unavailable);
        resolve(false);
      });
    });
    if (!spawned) return;
    this.child = child;
    child.stderr?.on('data', () => undefined);
    child.once('exit', (code, signal) => {
      this.child = null;
      if (this.stopping) return;
      log.warn(`caddy exited (${signal ?? code}); restarting in ${this.backoffMs} ms`);
      setTimeout(() => void this.spawnCaddy(configPath), this.backoffMs).unref();
      this.backoffMs = Math.min(this.backoffMs * 2, 30_000);
    });
    for (let i = 0; i < 100 && !(await this.client.ready()); i++) await new Promise((r) => setTimeout(r, 50));
    this.unavailable = null;
    this.backoffMs = 500;
    await this.options.onReady();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 3000).unref();
    });
  }
}
