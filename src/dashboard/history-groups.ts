/**
 * Events that echo another of the same request (a service joining its project as it is created, a name held for
 * it): never its headline.
 */
const ECHOES = new Set(['ProjectServiceAttached', 'ProjectServiceDetached', 'Reserved', 'Released']);

export interface RequestGroup<E> {
  /** The request's events in the order they happened. */
  events: E[];
  /** The one that says what the request did. */
  headline: E;
}

/** A newest-first list of events as entries, one per run of events the same request caused. */
export function groupByRequest<E extends { correlationId: string; type: string }>(newestFirst: readonly E[]): RequestGroup<E>[] {
  const runs: E[][] = [];
  for (const event of newestFirst) {
    const run = runs.at(-1);
    if (run && run[0]!.correlationId === event.correlationId) run.unshift(event);
    else runs.push([event]);
  }
  return runs.map((events) => ({ events, headline: events.find((e) => !ECHOES.has(e.type)) ?? events[0]! }));
}
