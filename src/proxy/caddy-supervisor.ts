import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../logger.js';
import { CaddyAdminClient } from './caddy-admin-client.js';

export interface CaddySupervisorOptions {
  binary: string;
  adminListen: string;
  workDir: string;
  log: Logger;
  /** Called after every (re)start or adoption, once the admin API answers, to push the current configuration. */
  onReady: () => Promise<void>;
  /** How often the admin API is checked; a Caddy that stopped answering is started again. */
  checkEveryMs?: number;
}

/**
 * Keeps a Caddy running for Slipway. Caddy runs detached and outlives Slipway: stopping or upgrading
 * the control plane never takes the sites down. On start a Caddy already answering on the admin
 * address is adopted and given the current routes; one that dies is started again.
 */
export class CaddySupervisor {
  private stopping = false;
  private starting: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** Whether the Caddy answering now has been given the routes. */
  private adopted = false;
  unavailable: string | null = null;
  readonly client: CaddyAdminClient;

  constructor(private readonly options: CaddySupervisorOptions) {
    this.client = new CaddyAdminClient(`http://${options.adminListen}`);
  }

  async start(): Promise<void> {
    mkdirSync(this.options.workDir, { recursive: true });
    await this.ensureRunning();
    this.timer = setInterval(() => void this.ensureRunning(), this.options.checkEveryMs ?? 2000);
    this.timer.unref();
  }

  /** Leaves Caddy serving; only the watching stops. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearInterval(this.timer);
    await this.starting;
  }

  /** Stops watching, then stops the Caddy it kept running (the sites go down with it). */
  async stopWithCaddy(): Promise<void> {
    await this.stop();
    if (await this.client.stop()) this.options.log.info('stopped caddy (SLIPWAY_KEEP_PROXY=1 keeps it serving while Slipway is down)');
  }

  private ensureRunning(): Promise<void> {
    this.starting ??= this.check().finally(() => (this.starting = null));
    return this.starting;
  }

  private async check(): Promise<void> {
    if (this.stopping) return;
    if (await this.client.ready()) {
      if (this.unavailable !== null || !this.adopted) await this.ready();
      return;
    }
    if (this.adopted) this.options.log.warn('caddy stopped answering; starting it again');
    this.adopted = false;
    if (!(await this.spawnCaddy())) return;
    for (let i = 0; i < 100 && !(await this.client.ready()); i++) await new Promise((r) => setTimeout(r, 50));
    await this.ready();
  }

  private async ready() {
    this.adopted = true;
    this.unavailable = null;
    await this.options.onReady();
  }

  private async spawnCaddy(): Promise<boolean> {
    const { binary, workDir, adminListen, log } = this.options;
    const configPath = join(workDir, 'bootstrap.json');
    writeFileSync(configPath, JSON.stringify({ admin: { listen: adminListen } }));
    const output = openSync(join(workDir, 'caddy.log'), 'a');
    try {
      const child = spawn(binary, ['run', '--config', configPath], {
        env: { ...process.env, HOME: workDir, XDG_DATA_HOME: join(workDir, 'data'), XDG_CONFIG_HOME: join(workDir, 'config') },
        stdio: ['ignore', output, output],
        detached: true,
      });
      return await new Promise<boolean>((resolve) => {
        child.once('spawn', () => {
          child.unref();
          resolve(true);
        });
        child.once('error', (error) => {
          this.unavailable = `caddy could not be started (${binary}): ${error.message}`;
          log.warn(this.unavailable);
          resolve(false);
        });
      });
    } finally {
      closeSync(output);
    }
  }
}
