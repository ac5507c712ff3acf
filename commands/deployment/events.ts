import { z } from 'zod';
import { eventParser, type EventsOf } from '../shared/event.js';

const BUILT_WITH = ['dockerfile', 'packbuilder', 'image'] as const;

export const deploymentEvents = {
  DeploymentQueued: z.object({ serviceId: z.string(), projectId: z.string(), trigger: z.enum(['manual']) }),
  DeploymentStarted: z.object({}),
  DeploymentCommitResolved: z.object({ commitSha: z.string() }),
  DeploymentImageBuilt: z.object({ imageTag: z.string(), buildMethod: z.enum(BUILT_WITH) }),
  DeploymentContainerStarted: z.object({ containerName: z.string() }),
  DeploymentSucceeded: z.object({}),
  DeploymentFailed: z.object({ reason: z.string() }),
  DeploymentAbortRequested: z.object({}),
  DeploymentAborted: z.object({ reason: z.string() }),
  /** An explanation of the failure, kept so the next request shows it again without asking the provider. */
  DeploymentFailureExplained: z.object({
    providerId: z.string(),
    model: z.string().nullable(),
    explanation: z.object({ summary: z.string(), likelyCause: z.string(), suggestedFix: z.string(), commands: z.array(z.string()) }),
  }),
};
export type DeploymentEvent = EventsOf<typeof deploymentEvents>;
export const parseDeploymentEvent = eventParser(deploymentEvents);
export type FailureExplained = Extract<DeploymentEvent, { type: 'DeploymentFailureExplained' }>['data'];

/** Build and start-up output, in chunks on its own stream (`deploymentlog-<id>`), never one event per line. */
const logLine = z.object({ line: z.string(), stream: z.enum(['stdout', 'stderr', 'system']), at: z.string() });
export type LogLine = z.infer<typeof logLine>;

export const deploymentLogEvents = {
  DeploymentLogAppended: z.object({ first: z.number().int().min(1), lines: z.array(logLine) }),
};
export type DeploymentLogEvent = EventsOf<typeof deploymentLogEvents>;
export const parseDeploymentLogEvent = eventParser(deploymentLogEvents);
export const LOG_CATEGORY = 'deploymentlog';
