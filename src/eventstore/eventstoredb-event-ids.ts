import { NO_STREAM, WrongExpectedVersionError, jsonEvent, type EventStoreDBClient } from '@eventstore/db-client';
import { CLAIM_TYPE, claimStreamOf } from './eventstoredb-records.js';

/** What `claimEventIds` found. */
export interface Claims {
  /** Every id was claimed for this stream before: this append may be a retry of one that was stored. */
  allClaimedBefore: boolean;
  /** Ids already claimed for another stream. */
  elsewhere: string[];
}

async function claimedFor(client: EventStoreDBClient, eventId: string): Promise<string | null> {
  for await (const resolved of client.readStream(claimStreamOf(eventId), { maxCount: 1 })) {
    const data = resolved.event?.data as { streamId?: unknown } | undefined;
    return typeof data?.streamId === 'string' ? data.streamId : null;
  }
  return null;
}

/** Claims each event id for `streamId` (in parallel: one round trip); an id is claimed once, for good. */
export async function claimEventIds(client: EventStoreDBClient, streamId: string, eventIds: readonly string[]): Promise<Claims> {
  const outcomes = await Promise.all(
    eventIds.map(async (id): Promise<'new' | 'mine' | 'elsewhere'> => {
      try {
        await client.appendToStream(claimStreamOf(id), jsonEvent({ type: CLAIM_TYPE, data: { streamId } }), { expectedRevision: NO_STREAM });
        return 'new';
      } catch (error) {
        if (!(error instanceof WrongExpectedVersionError)) throw error;
        return (await claimedFor(client, id)) === streamId ? 'mine' : 'elsewhere';
      }
    }),
  );
  return {
    allClaimedBefore: outcomes.every((o) => o === 'mine'),
    elsewhere: eventIds.filter((_, i) => outcomes[i] === 'elsewhere'),
  };
}
