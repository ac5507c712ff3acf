/** Where a thing's values come from: publishes each new one until the thing is gone (it returns) or the signal fires. */
export type Source<T> = (publish: (value: T) => void, signal: AbortSignal) => Promise<void>;

export interface SamplerOptions {
  /** A thing nobody has read for this long is no longer sampled. */
  quietMs: number;
  /**
   * The most things sampled at once: a read of one more ends the one read least recently, so nobody's reads
   * (a hostile key's polling included) can keep another's out.
   */
  max: number;
}

interface Sampling<T> {
  latest: { value: T } | null;
  readAt: number;
  readonly stop: AbortController;
  /** Settles at the first value, or when the source ends without one. */
  readonly first: Promise<void>;
  timer: NodeJS.Timeout | null;
}

/**
 * Keeps the latest value of each thing someone is looking at, from a source of its own that runs in the background:
 * the first read of a thing starts it, and it stops on its own once nobody has read it for a quiet period, when the
 * thing is gone (its source ends), or when the sampler stops. A read never waits past its deadline.
 */
export class Sampler<T> {
  private readonly sampling = new Map<string, Sampling<T>>();
  /** Sources still running, those stopped for quiet on their way out included. */
  private readonly running = new Set<Promise<void>>();
  private stopped = false;
  private startedCount = 0;

  constructor(private readonly options: SamplerOptions) {}

  /**
   * The latest value of `key`, or undefined while none is known. A read of a thing not sampled yet starts `source`;
   * any read waits for a first value until `deadline` (epoch ms) at most.
   */
  async read(key: string, source: Source<T>, deadline: number): Promise<T | undefined> {
    const sampling = this.sampling.get(key) ?? this.start(key, source);
    if (!sampling) return undefined;
    sampling.readAt = Date.now();
    if (!sampling.latest) await until(sampling.first, deadline);
    return sampling.latest?.value;
  }

  /** Sources started so far: a read of a thing already sampled starts none. */
  get started(): number {
    return this.startedCount;
  }

  /** The things sampled now. */
  keys(): string[] {
    return [...this.sampling.keys()];
  }

  /** Stops every source and waits for them to end; nothing is sampled afterwards. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const key of this.keys()) this.end(key);
    await Promise.all(this.running);
  }

  private start(key: string, source: Source<T>): Sampling<T> | null {
    if (this.stopped) return null;
    if (this.sampling.size >= this.options.max) this.endLeastRecentlyRead();
    this.startedCount++;
    let firstValue: () => void = () => undefined;
    const first = new Promise<void>((resolve) => (firstValue = resolve));
    const sampling: Sampling<T> = { latest: null, readAt: Date.now(), stop: new AbortController(), first, timer: null };
    this.sampling.set(key, sampling);
    const publish = (value: T) => {
      if (sampling.stop.signal.aborted) return;
      sampling.latest = { value };
      firstValue();
    };
    // A source that fails (no such container, an engine down) only means "not known": the next read tries again.
    const ended = (async () => source(publish, sampling.stop.signal))()
      .catch(() => undefined)
      .finally(() => {
        firstValue();
        this.end(key, sampling);
        this.running.delete(ended);
      });
    this.running.add(ended);
    this.watchQuiet(key, sampling, this.options.quietMs);
    return sampling;
  }

  private endLeastRecentlyRead() {
    let oldest: [string, Sampling<T>] | null = null;
    for (const entry of this.sampling) if (!oldest || entry[1].readAt < oldest[1].readAt) oldest = entry;
    if (oldest) this.end(...oldest);
  }

  /** No longer sampled: a read from now on starts a new source. */
  private end(key: string, sampling = this.sampling.get(key)) {
    if (!sampling) return;
    sampling.stop.abort();
    if (sampling.timer) clearTimeout(sampling.timer);
    if (this.sampling.get(key) === sampling) this.sampling.delete(key);
  }

  private watchQuiet(key: string, sampling: Sampling<T>, afterMs: number) {
    sampling.timer = setTimeout(() => {
      const quiet = Date.now() - sampling.readAt;
      if (quiet >= this.options.quietMs) this.end(key, sampling);
      else this.watchQuiet(key, sampling, this.options.quietMs - quiet);
    }, afterMs);
    sampling.timer.unref();
  }
}

/** Waits for `work` until `deadline` (epoch ms) at most. */
async function until(work: Promise<void>, deadline: number): Promise<void> {
  const left = deadline - Date.now();
  if (left <= 0) return;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, left)));
  try {
    await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}
