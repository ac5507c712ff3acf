import { reasonText } from '../shared/printable.js';
import { defineAggregate, type Evolution } from '../shared/aggregate.js';
import { conflict, notFound } from '../shared/domain-error.js';
import { parseDeploymentEvent, type DeploymentEvent, type DeploymentKind, type DeploymentTrigger, type FailureExplained, type DEPLOYMENT_SOURCES } from './events.js';
import type { ReleaseDraft } from '../release/events.js';

type DeploymentSource = (typeof DEPLOYMENT_SOURCES)[number];

export type DeploymentStatus = 'none' | 'queued' | 'running' | 'succeeded' | 'failed' | 'aborted' | 'canceled' | 'rolled_back';

export interface DeploymentRequest {
  kind: DeploymentKind;
  trigger: DeploymentTrigger;
  releaseId: string | null;
  config: 'release' | 'current';
  /** A build of this exact commit (a pushed `after`); absent or null: the branch as the clone finds it. */
  commitSha?: string | null;
  source?: DeploymentSource;
  toNodeId?: string | null;
}

export const BUILD_REQUEST: DeploymentRequest = { kind: 'deploy', trigger: 'manual', releaseId: null, config: 'current' };

export interface DeploymentState {
  status: DeploymentStatus;
  serviceId: string | null;
  projectId: string | null;
  abortRequested: boolean;
  /** The latest explanation of its failure. */
  explained: FailureExplained | null;
  /** What was asked for: a build, or a kept release to run. */
  request: DeploymentRequest;
  watchFailed: boolean;
  /** The release its success carries (recorded in the release history from it). */
  wentLive: ReleaseDraft | null;
}

const FINISHED: readonly DeploymentStatus[] = ['succeeded', 'failed', 'aborted', 'canceled', 'rolled_back'];
export const isFinished = (status: DeploymentStatus) => FINISHED.includes(status);

const evolution: Evolution<DeploymentState, DeploymentEvent> = {
  category: 'deployment',
  initial: { status: 'none', serviceId: null, projectId: null, abortRequested: false, explained: null, request: BUILD_REQUEST, watchFailed: false, wentLive: null },
  evolve(state, event) {
    switch (event.type) {
      case 'DeploymentQueued': {
        const { serviceId, projectId, ...request } = event.data;
        return { ...state, status: 'queued', serviceId, projectId, request };
      }
      case 'DeploymentStarted':
        return { ...state, status: 'running' };
      case 'DeploymentAbortRequested':
        return { ...state, abortRequested: true };
      case 'DeploymentSucceeded':
        return { ...state, status: 'succeeded', wentLive: event.data.release ?? null };
      case 'DeploymentFailed':
        return { ...state, status: 'failed' };
      case 'DeploymentAborted':
        return { ...state, status: 'aborted' };
      case 'DeploymentCanceled':
        return { ...state, status: 'canceled' };
      case 'DeploymentRolledBack':
        return { ...state, status: 'rolled_back' };
      case 'DeploymentWatchFailed':
        return { ...state, watchFailed: true };
      case 'DeploymentFailureExplained':
        return { ...state, explained: event.data };
      default:
        return state;
    }
  },
  parse: parseDeploymentEvent,
};

function decideQueue(state: DeploymentState, serviceId: string, projectId: string, request: DeploymentRequest = BUILD_REQUEST): DeploymentEvent[] {
  if (state.status !== 'none') throw conflict('deployment already exists');
  return [{ type: 'DeploymentQueued', data: { serviceId, projectId, commitSha: null, source: 'upstream', ...request } }];
}

/** The deployer takes a queued deployment; one that was aborted meanwhile is not started. */
function decideStart(state: DeploymentState): DeploymentEvent[] {
  return state.status === 'queued' && !state.abortRequested ? [{ type: 'DeploymentStarted', data: {} }] : [];
}

/** Progress is recorded only while running: a late report from an aborted or failed run is dropped. */
function decideProgress(state: DeploymentState, event: DeploymentEvent): DeploymentEvent[] {
  return state.status === 'running' ? [event] : [];
}

export type WentLive = Extract<DeploymentEvent, { type: 'DeploymentSucceeded' }>['data'];

/** `live`: the release it made live and its watch, recorded in the same append as the success. */
function decideSucceed(state: DeploymentState, live: WentLive = {}): DeploymentEvent[] {
  if (state.status !== 'running') return [];
  if (state.abortRequested) return [{ type: 'DeploymentAborted', data: { reason: 'aborted by request' } }];
  return [{ type: 'DeploymentSucceeded', data: live }];
}

function decideFail(state: DeploymentState, reason: string): DeploymentEvent[] {
  return isFinished(state.status) || state.status === 'none' ? [] : [{ type: 'DeploymentFailed', data: { reason: reasonText(reason) } }];
}

/**
 * A queued deployment ends at once; a running one is asked to stop and ends `aborted` when the deployer
 * has stopped its build or container. A finished one cannot be aborted (HTTP 409).
 */
function decideAbort(state: DeploymentState): DeploymentEvent[] {
  if (state.status === 'none') throw notFound('deployment');
  if (isFinished(state.status)) throw conflict(`the deployment has already ${state.status}`);
  if (state.status === 'queued') return [{ type: 'DeploymentAborted', data: { reason: 'aborted before it started' } }];
  return state.abortRequested ? [] : [{ type: 'DeploymentAbortRequested', data: {} }];
}

function decideMarkAborted(state: DeploymentState, reason: string): DeploymentEvent[] {
  return isFinished(state.status) || state.status === 'none' ? [] : [{ type: 'DeploymentAborted', data: { reason: reasonText(reason) } }];
}

/** Only a deployment still waiting in the queue is canceled; one that started (or ended, or is being aborted) is left alone. */
function decideCancel(state: DeploymentState, reason: string, replacedBy: string | null): DeploymentEvent[] {
  return state.status === 'queued' && !state.abortRequested ? [{ type: 'DeploymentCanceled', data: { reason: reasonText(reason), replacedBy } }] : [];
}

export function assertExplainable(state: DeploymentState): void {
  if (state.status === 'none') throw notFound('deployment');
  if (state.status !== 'failed' && state.status !== 'rolled_back') {
    throw conflict(`only a failed or rolled back deployment can be explained; this one is ${state.status}`);
  }
}

function decideExplain(state: DeploymentState, explained: FailureExplained): DeploymentEvent[] {
  assertExplainable(state);
  return [{ type: 'DeploymentFailureExplained', data: explained }];
}

/** Only a release that went live can be rolled back, once. */
function decideRolledBack(state: DeploymentState, reason: string, rollbackDeploymentId: string | null): DeploymentEvent[] {
  if (state.status !== 'succeeded') return [];
  return [{ type: 'DeploymentRolledBack', data: { reason: reasonText(reason), rollbackDeploymentId } }];
}

/** Cluster mode: Swarm rolled an update back itself before it completed (a task failed its health check). */
function decideRolledBackBySwarm(state: DeploymentState, reason: string): DeploymentEvent[] {
  if (state.status !== 'running') return [];
  return [{ type: 'DeploymentRolledBack', data: { reason: reasonText(reason), rollbackDeploymentId: null } }];
}

/** What a watch saw is recorded once, on a release that went live and was not rolled back. */
function decideWatchFailed(state: DeploymentState, reason: string): DeploymentEvent[] {
  if (state.status !== 'succeeded' || state.watchFailed) return [];
  return [{ type: 'DeploymentWatchFailed', data: { reason: reasonText(reason) } }];
}

/** The deployment aggregate and its command vocabulary. */
export const deployment = defineAggregate(evolution, {
  queue: decideQueue,
  start: decideStart,
  progress: decideProgress,
  succeed: decideSucceed,
  fail: decideFail,
  abort: decideAbort,
  markAborted: decideMarkAborted,
  cancel: decideCancel,
  explain: decideExplain,
  rolledBack: decideRolledBack,
  rolledBackBySwarm: decideRolledBackBySwarm,
  watchFailed: decideWatchFailed,
});
