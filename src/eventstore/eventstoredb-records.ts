import type { AllStreamResolvedEvent, JSONEventType, Position, ResolvedEvent } from '@eventstore/db-client';
import type { EventMetadata, RecordedEvent } from './port.js';
import { decodePosition, encodePosition } from './position.js';

export type StoredMetadata = EventMetadata & { schemaVersion: number; $correlationId: string; $causationId?: string };
export type SlipwayEvent = JSONEventType<string, Record<string, unknown>, StoredMetadata>;

/**
 * EventStoreDB accepts one event id in several streams; Slipway does not. Each id is claimed in a stream of
 * its own (`slipway-eventid-<id>`) holding the stream it belongs to. Claims are bookkeeping, never events.
 */
export const CLAIM_TYPE = 'SlipwayEventIdClaimed';
export const claimStreamOf = (eventId: string) => `slipway-eventid-${eventId}`;

/** Server-side filter for live subscriptions: neither system events (`$…`) nor claims. */
export const USER_EVENT_TYPES = `^(?!\\$)(?!${CLAIM_TYPE}$)`;

export const fromEsdbPosition = (position: Position): string => encodePosition(position.commit, position.prepare);

/** Throws a RangeError for text that is not a position. */
export function toEsdbPosition(position: string): Position {
  const [commit, prepare] = decodePosition(position);
  return { commit, prepare };
}

/** The event's position in `$all`; stream reads carry it on servers after 22.6. */
export function positionOf(resolved: ResolvedEvent | AllStreamResolvedEvent): string | null {
  const position = resolved.event?.position;
  return position ? fromEsdbPosition(position) : null;
}

/** A Slipway event as the port records it; null for system events, claims and non-JSON records. */
export function toRecorded(resolved: ResolvedEvent | AllStreamResolvedEvent): RecordedEvent | null {
  const event = resolved.event;
  if (!event || !event.isJson || event.type.startsWith('$') || event.type === CLAIM_TYPE || event.streamId.startsWith('$')) return null;
  const { schemaVersion, actor, correlationId, causationId } = (event.metadata ?? {}) as Partial<StoredMetadata>;
  const commit = resolved.commitPosition ?? 0n;
  return {
    id: event.id,
    type: event.type,
    schemaVersion: schemaVersion ?? 1,
    data: event.data as Record<string, unknown>,
    metadata: { actor: actor ?? 'unknown', correlationId: correlationId ?? event.id, causationId: causationId ?? null },
    streamId: event.streamId,
    revision: Number(event.revision),
    position: positionOf(resolved) ?? encodePosition(commit, commit),
    recordedAt: event.created.toISOString(),
  };
}
