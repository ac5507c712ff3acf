import { z } from 'zod';
import { eventParser, type EventsOf } from '../shared/event.js';

export const apiKeyEvents = {
  ApiKeyCreated: z.object({
    name: z.string(),
    access: z.enum(['read', 'write']),
    /** null: every project. */
    projectIds: z.array(z.string()).nullable(),
    secretHash: z.string(),
    prefix: z.string(),
  }),
  ApiKeyRevoked: z.object({}),
};
export type ApiKeyEvent = EventsOf<typeof apiKeyEvents>;
export const parseApiKeyEvent = eventParser(apiKeyEvents);
