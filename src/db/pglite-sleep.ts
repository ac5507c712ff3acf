import type { PgliteThread, Request } from './pglite-thread-handle.js';

/** How often a thread that may sleep looks at how long it has been quiet. */
const CHECK_EVERY_MS = 1000;

/**
 * The PGlite thread of a data directory, closed while nothing needs it. PGlite's WebAssembly memory, its
 * compiled Postgres and its files stay resident as long as the thread lives (≈ 55 MB) and never shrink; a
 * control plane is idle most of the time, and on a 1 GB server the apps need that memory more. After
 * `sleepAfterMs` without a `touch` (a request, an append), no statement in flight and no open transaction,
 * the thread shuts Postgres down cleanly and ends; the next statement opens it again (≈ 0.5 s) and the
 * channels listened to are listened to again. Nothing can be missed meanwhile: in a data directory this
 * process is the only writer, and a write wakes the thread.
 */
export class SleepingThread {
  private thread: PgliteThread | null = null;
  private waking: Promise<PgliteThread> | null = null;
  private closing: Promise<void> = Promise.resolve();
  private readonly listeners = new Map<string, Set<() => void>>();
  private held = 0;
  private touchedAt = Date.now();
  private readonly timer: NodeJS.Timeout | null;
  private closed = false;

  constructor(
    private readonly start: (onNotify: (channel: string) => void) => Promise<PgliteThread>,
    private readonly sleepAfterMs: number,
  ) {
    this.timer = sleepAfterMs > 0 ? setInterval(() => this.sleepIfQuiet(), Math.min(CHECK_EVERY_MS, sleepAfterMs)).unref() : null;
  }

  asleep(): boolean {
    return this.thread === null && this.waking === null;
  }

  touch(): void {
    this.touchedAt = Date.now();
  }

  /** While held (an open transaction), the thread does not sleep. */
  hold(): void {
    this.held++;
  }

  release(): void {
    this.held--;
  }

  wake(): Promise<PgliteThread> {
    if (this.thread) return Promise.resolve(this.thread);
    if (this.closed) return Promise.reject(new Error('the PGlite thread stopped (the client was closed)'));
    this.waking ??= this.closing
      .then(async () => {
        const thread = await this.start((channel) => this.notify(channel));
        try {
          for (const channel of this.listeners.keys()) await thread.call({ op: 'listen', channel });
        } catch (error) {
          await thread.close().catch(() => undefined);
          throw error;
        }
        this.thread = thread;
        this.touch();
        return thread;
      })
      .finally(() => {
        this.waking = null;
      });
    return this.waking;
  }

  call<T>(request: Request): Promise<T> {
    // Awake, the request goes out now, in the order asked: pipelined statements and transactions rely on it.
    return this.thread ? this.thread.call<T>(request) : this.wake().then((thread) => thread.call<T>(request));
  }

  async listen(channel: string, onNotify: () => void): Promise<() => Promise<void>> {
    let set = this.listeners.get(channel);
    if (!set) {
      set = new Set();
      this.listeners.set(channel, set);
      await this.call({ op: 'listen', channel });
    }
    set.add(onNotify);
    return async () => {
      set.delete(onNotify);
      if (set.size > 0 || this.listeners.get(channel) !== set) return;
      this.listeners.delete(channel);
      // A sleeping thread listens to nothing; it is not woken to stop.
      if (this.thread) await this.call({ op: 'unlisten', channel }).catch(() => undefined);
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    await this.waking?.catch(() => undefined);
    const thread = this.thread;
    this.thread = null;
    await thread?.close();
    await this.closing;
  }

  private notify(channel: string) {
    for (const listener of this.listeners.get(channel) ?? []) listener();
  }

  private sleepIfQuiet() {
    if (!this.thread || this.thread.busy() || this.held > 0 || Date.now() - this.touchedAt < this.sleepAfterMs) return;
    const thread = this.thread;
    this.thread = null;
    // A thread that cannot close cleanly has failed; the next statement starts a new one either way.
    this.closing = thread.close().catch(() => undefined);
  }
}
