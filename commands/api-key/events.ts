import { z } from 'zod';
import { eventParser, type EventsOf } from '../shared/event.js';

/** Which projects a key sees: every one (an all-project key), or those listed. */
export const apiKeyScope = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('all') }),
  z.object({ kind: z.literal('projects'), projectIds: z.array(z.string()) }),
]);
export type ApiKeyScope = z.infer<typeof apiKeyScope>;

export const apiKeyEvents = {
  /**
   * Schema version 3; version 1 had `projectIds` (null: every project) instead of `scope`, version 2 no
   * `ownerUserId`. A person's key never does more than its person can at the time of each request.
   */
  ApiKeyCreated: z.object({
    name: z.string(),
    access: z.enum(['read', 'write']),
    scope: apiKeyScope,
    secretHash: z.string(),
    prefix: z.string(),
    ownerUserId: z.string().nullable(),
  }),
  ApiKeyRevoked: z.object({}),
};
export type ApiKeyEvent = EventsOf<typeof apiKeyEvents>;
export const parseApiKeyEvent = eventParser(apiKeyEvents);
