interface Run {
  serviceId: string;
  controller: AbortController;
  done: Promise<void>;
}

/** The runs a process manager has in progress, one per id; each can be stopped with a reason, all at stop. */
export class RunSet {
  private readonly active = new Map<string, Run>();
  private stopping = false;

  constructor(private readonly onError: (id: string, error: unknown) => void) {}

  has(id: string) {
    return this.active.has(id);
  }

  get stopped() {
    return this.stopping;
  }

  /** Starts `run` unless one with this id runs already or the set is stopping. */
  launch(id: string, serviceId: string, run: (signal: AbortSignal) => Promise<void>) {
    if (this.stopping || this.active.has(id)) return;
    const controller = new AbortController();
    const done = run(controller.signal)
      .catch((error: unknown) => this.onError(id, error))
      .finally(() => this.active.delete(id));
    this.active.set(id, { serviceId, controller, done });
  }

  abortService(serviceId: string, reason: string) {
    for (const run of this.active.values()) if (run.serviceId === serviceId) run.controller.abort(reason);
  }

  /** Takes no more runs; those in progress are stopped with `reason` and awaited. */
  async stop(reason: string) {
    this.stopping = true;
    for (const run of this.active.values()) run.controller.abort(reason);
    await Promise.all([...this.active.values()].map((r) => r.done));
  }
}
