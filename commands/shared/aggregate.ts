import type { RecordedEvent } from '../../src/eventstore/port.js';
import type { DomainEvent } from './event.js';

/** Where an aggregate's events live and how they fold into its state: all that loading a stream needs. */
export interface Evolution<S, E extends DomainEvent> {
  readonly category: string;
  readonly initial: S;
  evolve(state: S, event: E): S;
  parse(recorded: Pick<RecordedEvent, 'type' | 'data' | 'schemaVersion'>): E | null;
}

/** One command: from the state and the command's input, the events to record ([]: nothing to record), or a DomainError. Pure. */
export type Decide<S, E> = (state: S, ...input: never[]) => E[];

export type Deciders<S, E> = Record<string, Decide<S, E>>;

/**
 * An aggregate: its evolution and its whole command vocabulary, `decide`, one decider per command by name
 * (`project.decide.create(state, input)`). Called through `execute`, tested through `test/helpers/decider-spec.ts`.
 *
 * An object of named deciders rather than one `decide(command, state)` over a union of commands: every handler
 * already called one decide function per command with its own typed input, and this keeps those calls as they
 * were while listing the vocabulary in one place, with no command type, constructor or switch to add per command.
 */
export interface Aggregate<S, E extends DomainEvent, C extends Deciders<S, E> = Deciders<S, E>> extends Evolution<S, E> {
  readonly decide: C;
}

/** An aggregate from its evolution and its deciders (their names and inputs stay typed). */
export const defineAggregate = <S, E extends DomainEvent, C extends Deciders<S, E>>(evolution: Evolution<S, E>, decide: C): Aggregate<S, E, C> => ({
  ...evolution,
  decide,
});

export const streamOf = (category: string, id: string) => `${category}-${id}`;
