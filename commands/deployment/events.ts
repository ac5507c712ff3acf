import { z } from 'zod';
import { releaseDraft } from '../release/events.js';
import { eventParser, type EventsOf } from '../shared/event.js';
import { logChunk } from '../shared/log-chunk.js';

const BUILT_WITH = ['dockerfile', 'packbuilder', 'image'] as const;

/**
 * `deploy` builds (or pulls) and runs; the others run a kept release's image without clone or build:
 * `rollback` an earlier release, `config` the current release with changed limits or health check,
 * `start` and `restart` the current release of a stopped or running service, `move` a database service's
 * current release and its data onto another cluster node.
 */
export const DEPLOYMENT_KINDS = ['deploy', 'rollback', 'config', 'start', 'restart', 'move'] as const;
export type DeploymentKind = (typeof DEPLOYMENT_KINDS)[number];
/** `manual`: a request; `auto`: Slipway itself (an automatic rollback). */
/** `auto`: Slipway itself (an automatic rollback); `webhook`: a Git host's push; `push`: a `git push` to Slipway. */
export const DEPLOYMENT_TRIGGERS = ['manual', 'auto', 'webhook', 'push'] as const;
export type DeploymentTrigger = (typeof DEPLOYMENT_TRIGGERS)[number];
/** Where a build's source comes from: the service's own repository, or the objects pushed to Slipway's. */
export const DEPLOYMENT_SOURCES = ['upstream', 'push'] as const;
/** Which configuration a release-based deployment runs with: the release's own snapshot, or today's. */
export const RELEASE_CONFIGS = ['release', 'current'] as const;

export const deploymentEvents = {
  DeploymentQueued: z.object({
    serviceId: z.string(),
    projectId: z.string(),
    trigger: z.enum(DEPLOYMENT_TRIGGERS),
    // Defaults: events written before releases existed were all builds.
    kind: z.enum(DEPLOYMENT_KINDS).default('deploy'),
    /** The release a release-based deployment runs; null for a build. */
    releaseId: z.string().nullable().default(null),
    config: z.enum(RELEASE_CONFIGS).default('current'),
    /** The exact commit a build checks out (a pushed `after`); null: whatever the branch holds at the clone. */
    commitSha: z.string().regex(/^[0-9a-f]{40}$/).nullable().default(null),
    source: z.enum(DEPLOYMENT_SOURCES).default('upstream'),
    /** A `move`'s destination: the node a database service's data goes to (null: the manager's engine). */
    toNodeId: z.string().nullable().optional(),
  }),
  DeploymentStarted: z.object({}),
  DeploymentCommitResolved: z.object({ commitSha: z.string(), commitMessage: z.string().nullable().default(null) }),
  DeploymentImageBuilt: z.object({
    imageTag: z.string(),
    buildMethod: z.enum(BUILT_WITH),
    // Null in events written before images were recorded by id.
    /** `sha256:…`: the image that runs, whatever its tag points at later. */
    imageId: z.string().nullable().default(null),
    /** `<repository>@sha256:…` the registry gave for an image service's tag; null for a build or a local image. */
    digest: z.string().nullable().default(null),
  }),
  /** `release`: what goes live if the run switches to it, so a restart that finds it switched records its release. */
  DeploymentContainerStarted: z.object({ containerName: z.string(), release: releaseDraft.optional() }),
  /**
   * `release`: what went live (absent in logs written before it was carried here, and when it could not be
   * made); `watchUntil`: the end of the release's watch window, when it is watched (a restart resumes the watch).
   */
  DeploymentSucceeded: z.object({ release: releaseDraft.optional(), watchUntil: z.string().optional() }),
  DeploymentFailed: z.object({ reason: z.string() }),
  /**
   * After it went live, the release misbehaved within its watch window (exited, restarted, failed its health
   * check) and the previous release is being put back by `rollbackDeploymentId`.
   */
  DeploymentRolledBack: z.object({ reason: z.string(), rollbackDeploymentId: z.string().nullable() }),
  /** The release misbehaved within its watch window, and the service does not roll back on its own (`autoRollback: false`). */
  DeploymentWatchFailed: z.object({ reason: z.string() }),
  DeploymentAbortRequested: z.object({}),
  DeploymentAborted: z.object({ reason: z.string() }),
  /**
   * A queued deployment that will not run: a newer push of the service replaced it (`replacedBy`), or a copy of
   * the webhook delivery that queued it had been accepted first (`replacedBy` null).
   */
  DeploymentCanceled: z.object({ reason: z.string(), replacedBy: z.string().nullable() }),
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

export type { LogLine } from '../shared/log-chunk.js';

/** Build and start-up output, in chunks on its own stream (`deploymentlog-<id>`), never one event per line. */
export const deploymentLogEvents = {
  DeploymentLogAppended: logChunk,
};
export type DeploymentLogEvent = EventsOf<typeof deploymentLogEvents>;
export const parseDeploymentLogEvent = eventParser(deploymentLogEvents);
export const LOG_CATEGORY = 'deploymentlog';
