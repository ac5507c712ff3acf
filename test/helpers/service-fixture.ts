import type { ServiceCreatedData } from '../../commands/service/events.js';

/** A source service as `ServiceCreated` records it, for decider tests; spread it to change a field. */
export const sourceServiceData: ServiceCreatedData = {
  projectId: 'p1',
  name: 'web',
  slug: 'web',
  kind: 'source',
  repoFullName: 'acme/web',
  repoUrl: 'https://github.com/acme/web.git',
  dockerImage: null,
  hostPort: 20001,
  databaseEngine: null,
  databasePublicEnabled: false,
  databasePublicHostname: null,
  postgresLogicalReplicationEnabled: false,
  branch: 'main',
  rootDir: null,
  gitToken: null,
  installCommand: null,
  buildCommand: null,
  startCommand: null,
  buildMethod: 'auto',
  dockerfilePath: null,
  runtimeMode: 'web',
  internalPort: 3000,
};

/** The same service run from a container image. */
export const imageServiceData: ServiceCreatedData = {
  ...sourceServiceData,
  kind: 'image',
  repoFullName: 'image:web',
  repoUrl: 'docker-image',
  dockerImage: 'web:1',
};
