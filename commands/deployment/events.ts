import { z } from 'zod';
import { eventParser, type EventsOf } from '../shared/event.js';

export const deploymentEvents = {
  DeploymentQueued: z.object({ serviceId: z.string(), projectId: z.string(), trigger: z.enum(['manual']) }),
  DeploymentStarted: z.object({}),
  DeploymentCommitResolved: z.object({ commitSha: z.string() }),
  DeploymentImageBuilt: z.object({ imageTag: z.string(), buildMethod: z.enum(['dockerfile', 'packbuilder', 'image']) }),
  DeploymentContainerStarted: z.object({ containerName: z.string() }),
  DeploymentSucceeded: z.object({}),
  DeploymentFailed: z.object({ reason: z.string() }),
  DeploymentAbortRequested: z.object({}),
  DeploymentAborted: z.object({ reason: z.string() }),
};
export type DeploymentEvent = EventsOf<typeof deploymentEvents>;
export const parseDeploymentEvent = eventParser(deploymentEvents);
