import { z } from 'zod';
import { eventParser, type EventsOf } from '../shared/event.js';
import { serviceIdentity, serviceSettings } from './fields.js';

export const serviceEvents = {
  ServiceCreated: serviceIdentity.extend(serviceSettings.shape),
  ServiceUpdated: z.object({ changes: serviceSettings.partial() }),
  ServiceTransferred: z.object({ fromProjectId: z.string(), toProjectId: z.string() }),
  ServiceDeleted: z.object({ projectId: z.string() }),
  EnvVarSet: z.object({ envId: z.string(), key: z.string(), value: z.string() }),
  EnvVarDeleted: z.object({ envId: z.string(), key: z.string() }),
  DomainAdded: z.object({ domainId: z.string(), hostname: z.string() }),
  DomainChanged: z.object({ domainId: z.string(), hostname: z.string(), previousHostname: z.string() }),
  DomainRemoved: z.object({ domainId: z.string(), hostname: z.string() }),
};
export type ServiceEvent = EventsOf<typeof serviceEvents>;
export type ServiceCreatedData = z.infer<(typeof serviceEvents)['ServiceCreated']>;
export const parseServiceEvent = eventParser(serviceEvents);
