import type { RecordedEvent } from '../../src/eventstore/port.js';
import type { DomainEvent } from './event.js';

export interface Aggregate<S, E extends DomainEvent> {
  readonly category: string;
  readonly initial: S;
  evolve(state: S, event: E): S;
  parse(recorded: Pick<RecordedEvent, 'type' | 'data' | 'schemaVersion'>): E | null;
}

export const streamOf = (category: string, id: string) => `${category}-${id}`;
