/**
 * Pushes share the registry; its garbage collection has it alone. The collector deletes every layer no
 * manifest names, and a push uploads its layers before its manifest: a collection between the two would
 * delete the layers of the push under way. One Slipway process drives the cluster, so a lock in memory holds.
 */
export class RegistryLock {
  private pushes = 0;
  private collecting: Promise<void> | null = null;
  private idle: (() => void) | null = null;

  async push<T>(work: () => Promise<T>): Promise<T> {
    while (this.collecting) await this.collecting;
    this.pushes += 1;
    try {
      return await work();
    } finally {
      this.pushes -= 1;
      if (this.pushes === 0) this.idle?.();
    }
  }

  async collect(work: () => Promise<void>): Promise<void> {
    while (this.collecting) await this.collecting;
    const run = (async () => {
      // New pushes wait from here on; the ones under way finish first.
      if (this.pushes > 0) await new Promise<void>((resolve) => (this.idle = resolve));
      this.idle = null;
      await work();
    })();
    this.collecting = run.catch(() => undefined);
    try {
      await run;
    } finally {
      this.collecting = null;
    }
  }
}
