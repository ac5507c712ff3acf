import { z } from 'zod';
import { eventParser, type EventsOf } from '../shared/event.js';
import { projectRole } from '../user/roles.js';

export const projectEvents = {
  ProjectCreated: z.object({ name: z.string(), slug: z.string(), description: z.string() }),
  ProjectUpdated: z.object({ name: z.string(), description: z.string() }),
  ProjectServiceAttached: z.object({ serviceId: z.string() }),
  ProjectServiceDetached: z.object({ serviceId: z.string() }),
  ProjectDeleted: z.object({ slug: z.string() }),
  /** After a deletion: its slug (and anything else it held) is released. */
  ProjectRetired: z.object({ slug: z.string() }),
  /** A person's role in the project, given or changed. */
  ProjectMemberSet: z.object({ userId: z.string(), role: projectRole }),
  ProjectMemberRemoved: z.object({ userId: z.string() }),
};
export type ProjectEvent = EventsOf<typeof projectEvents>;
export const parseProjectEvent = eventParser(projectEvents);
