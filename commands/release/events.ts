import { z } from 'zod';
import { storedHealthCheck } from '../service/health-check.js';
import { resourceSettings } from '../service/resources.js';
import { eventParser, type EventsOf } from '../shared/event.js';

/** What a release ran with, beside its image. `env` is the resolved variables as one value sealed with the service's data key. */
export const releaseConfig = z.object({
  env: z.string(),
  startCommand: z.string().nullable(),
  internalPort: z.number().int(),
  runtimeMode: z.string(),
  /** The service's health check and limits as they were, in the form the service stores them (null: the default). */
  healthCheck: storedHealthCheck.optional(),
  resources: resourceSettings.nullable().optional(),
});
export type ReleaseConfig = z.infer<typeof releaseConfig>;

export const releaseEvents = {
  /** A deployment went live: its image by id (never a tag that can move), its commit and its configuration. */
  ReleaseRecorded: z.object({
    releaseId: z.string(),
    version: z.number().int().min(1),
    deploymentId: z.string(),
    imageId: z.string(),
    /** The reference the image was built or pulled as, for people; the release runs `imageId`. */
    imageRef: z.string(),
    commitSha: z.string().nullable(),
    commitMessage: z.string().nullable(),
    buildMethod: z.enum(['dockerfile', 'packbuilder', 'image']).nullable(),
    config: releaseConfig,
  }),
  /** Its image was removed (older than the service's `releasesKept`): it can no longer be rolled back to. */
  ReleaseImagePruned: z.object({ releaseId: z.string() }),
};
/**
 * The release a deployment makes live, as it goes live: carried by its `DeploymentSucceeded` (one append), so a
 * release never went live without the log holding it; `ReleaseRecorded` is derived from it (its version counted
 * in the service's release stream).
 */
export const releaseDraft = releaseEvents.ReleaseRecorded.omit({ version: true, deploymentId: true });
export type ReleaseDraft = z.infer<typeof releaseDraft>;

export type ReleaseEvent = EventsOf<typeof releaseEvents>;
export type ReleaseRecordedData = Extract<ReleaseEvent, { type: 'ReleaseRecorded' }>['data'];
export const parseReleaseEvent = eventParser(releaseEvents);
