import type { Test } from 'tap';
import type { Aggregate, Deciders } from '../../commands/shared/aggregate.js';
import type { DomainEvent } from '../../commands/shared/event.js';

/** What `t.throws` matches an error against: `{ code: 'conflict' }`, a RegExp of its message… */
type ErrorMatch = Exclude<Parameters<Test['throws']>[1], string | undefined>;

type InputOf<D> = D extends (state: never, ...input: infer I) => unknown ? I : never;

/** A history of events, folded into the aggregate's state. */
export interface Given<S, E extends DomainEvent, C extends Deciders<S, E>> {
  readonly history: readonly E[];
  readonly state: S;
  /** The command `name` with its input, decided on this state. */
  when<K extends keyof C & string>(name: K, ...input: InputOf<C[K]>): Outcome<S, E, C>;
}

/** What a command decided on a history. */
export interface Outcome<S, E extends DomainEvent, C extends Deciders<S, E>> {
  /** The events decided; reading them rethrows the decider's error. */
  readonly events: E[];
  /** The state once the decided events are recorded. */
  readonly state: S;
  then(t: Test, expected: readonly E[], message?: string): void;
  /** `expected` as tap's `t.throws` takes it: `{ code: 'conflict' }`, a RegExp… */
  thenThrows(t: Test, expected: ErrorMatch, message?: string): void;
  /** The history with the decided events recorded, and `more` after them: the next command's starting point. */
  given(...more: E[]): Given<S, E, C>;
}

/**
 * Given/when/then for a decider (as Emmett's DeciderSpecification): given events, when a command, then the events
 * it records or the error it throws. Pure: no store, no I/O.
 *
 *   const spec = deciderSpec(project);
 *   spec.given(created).when('update', { name: 'x' }).then(t, [{ type: 'ProjectUpdated', data: … }]);
 */
export function deciderSpec<S, E extends DomainEvent, C extends Deciders<S, E>>(aggregate: Aggregate<S, E, C>) {
  const fold = (history: readonly E[], from: S = aggregate.initial) => history.reduce((state, event) => aggregate.evolve(state, event), from);

  const given = (history: readonly E[]): Given<S, E, C> => {
    const state = fold(history);
    return {
      history,
      state,
      when(name, ...input) {
        const decide = aggregate.decide[name] as unknown as (state: S, ...input: unknown[]) => E[];
        let decided: { events: E[] } | { error: unknown };
        try {
          decided = { events: decide(state, ...input) };
        } catch (error) {
          decided = { error };
        }
        const events = (): E[] => {
          if ('error' in decided) throw decided.error;
          return decided.events;
        };
        return {
          get events() {
            return events();
          },
          get state() {
            return fold(events(), state);
          },
          then: (t, expected, message) => void (message === undefined ? t.same(events(), expected) : t.same(events(), expected, message)),
          thenThrows: (t, expected, message) => void (message === undefined ? t.throws(events, expected) : t.throws(events, expected, message)),
          given: (...more) => given([...history, ...events(), ...more]),
        };
      },
    };
  };

  return {
    /** The aggregate's state after `history`, from its initial state. */
    given: (...history: E[]) => given(history),
  };
}
