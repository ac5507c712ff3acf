import { randomUUID } from 'node:crypto';
import type { EventStore } from '../../src/eventstore/port.js';
import { newEvent } from './new-event.js';

const event = (type: string, data: Record<string, unknown>) => newEvent(type, data, 'seed');

/** Straight into the store, shaped like real use: per project 10 services, each with 8 variables and a domain (111 events). */
export async function seedEvents(store: EventStore, projects: number, portBase = 20000): Promise<{ events: number; slugs: string[] }> {
  let count = 0;
  const slugs: string[] = [];
  for (let p = 0; p < projects; p++) {
    const projectId = randomUUID();
    const serviceIds = Array.from({ length: 10 }, () => randomUUID());
    const slug = `seeded-${p}-${projectId.slice(0, 6)}`;
    slugs.push(slug);
    const projectEvents = [
      event('ProjectCreated', { name: `Seeded ${p}`, slug, description: 'seed' }),
      ...serviceIds.map((serviceId) => event('ProjectServiceAttached', { serviceId })),
    ];
    await store.append(`project-${projectId}`, projectEvents, 'no_stream');
    count += projectEvents.length;
    for (const [s, serviceId] of serviceIds.entries()) {
      const events = [
        event('ServiceCreated', {
          projectId, name: `svc${s}`, slug: `svc${s}`, kind: 'source', repoFullName: 'acme/app', repoUrl: 'https://github.com/acme/app.git',
          dockerImage: null, hostPort: portBase + ((p * 10 + s) % 40000), databaseEngine: null, databasePublicEnabled: false, databasePublicHostname: null,
          postgresLogicalReplicationEnabled: false, branch: 'main', rootDir: null, gitToken: null, installCommand: null, buildCommand: null,
          startCommand: null, buildMethod: 'auto', dockerfilePath: null, runtimeMode: 'web', internalPort: 3000,
        }),
        ...Array.from({ length: 8 }, (_, k) => event('EnvVarSet', { envId: randomUUID(), key: `KEY_${k}`, value: `enc:v1:${serviceId}:aaaa.bbbb.cccc` })),
        event('DomainAdded', { domainId: randomUUID(), hostname: `svc${s}.${slug}.seed.test` }),
      ];
      await store.append(`service-${serviceId}`, events, 'no_stream');
      count += events.length;
    }
  }
  return { events: count, slugs };
}
