import { defineAggregate, type Evolution } from '../shared/aggregate.js';
import { conflict, notFound } from '../shared/domain-error.js';
import type { ProjectRole } from '../user/roles.js';
import { parseProjectEvent, type ProjectEvent } from './events.js';

export interface ProjectState {
  status: 'none' | 'live' | 'deleted';
  /** Deleted, and its slug given back. */
  retired: boolean;
  name: string;
  slug: string;
  description: string;
  serviceIds: readonly string[];
  /** Its members by user id. */
  members: Readonly<Record<string, ProjectRole>>;
}

const evolution: Evolution<ProjectState, ProjectEvent> = {
  category: 'project',
  initial: { status: 'none', retired: false, name: '', slug: '', description: '', serviceIds: [], members: {} },
  evolve(state, event) {
    switch (event.type) {
      case 'ProjectCreated':
        return { ...state, status: 'live', ...event.data };
      case 'ProjectUpdated':
        return { ...state, ...event.data };
      case 'ProjectServiceAttached':
        return { ...state, serviceIds: [...state.serviceIds, event.data.serviceId] };
      case 'ProjectServiceDetached':
        return { ...state, serviceIds: state.serviceIds.filter((id) => id !== event.data.serviceId) };
      case 'ProjectDeleted':
        return { ...state, status: 'deleted', serviceIds: [] };
      case 'ProjectRetired':
        return { ...state, retired: true };
      case 'ProjectMemberSet':
        return { ...state, members: { ...state.members, [event.data.userId]: event.data.role } };
      case 'ProjectMemberRemoved': {
        const { [event.data.userId]: _gone, ...members } = state.members;
        return { ...state, members };
      }
    }
  },
  parse: parseProjectEvent,
};

function live(state: ProjectState): ProjectState {
  if (state.status !== 'live') throw notFound('project');
  return state;
}

function decideCreate(state: ProjectState, input: { name: string; slug: string; description: string }): ProjectEvent[] {
  if (state.status !== 'none') throw conflict('project already exists');
  return [{ type: 'ProjectCreated', data: input }];
}

function decideUpdate(state: ProjectState, input: { name?: string; description?: string }): ProjectEvent[] {
  const current = live(state);
  const next = { name: input.name ?? current.name, description: input.description ?? current.description };
  if (next.name === current.name && next.description === current.description) return [];
  return [{ type: 'ProjectUpdated', data: next }];
}

function decideAttach(state: ProjectState, serviceId: string): ProjectEvent[] {
  if (live(state).serviceIds.includes(serviceId)) return [];
  return [{ type: 'ProjectServiceAttached', data: { serviceId } }];
}

function decideDetach(state: ProjectState, serviceId: string): ProjectEvent[] {
  return state.serviceIds.includes(serviceId) ? [{ type: 'ProjectServiceDetached', data: { serviceId } }] : [];
}

function decideDelete(state: ProjectState): ProjectEvent[] {
  const current = live(state);
  if (current.serviceIds.length > 0) throw conflict('project still has services');
  return [{ type: 'ProjectDeleted', data: { slug: current.slug } }];
}

/** Retirement follows the deletion, once; retiring a retired project says nothing. */
function decideRetire(state: ProjectState): ProjectEvent[] {
  if (state.status === 'none') throw notFound('project');
  if (state.status === 'live') throw conflict('a live project cannot be retired; delete it first');
  if (state.retired) return [];
  return [{ type: 'ProjectRetired', data: { slug: state.slug } }];
}

function decideSetMember(state: ProjectState, input: { userId: string; role: ProjectRole }): ProjectEvent[] {
  return live(state).members[input.userId] === input.role ? [] : [{ type: 'ProjectMemberSet', data: input }];
}

function decideRemoveMember(state: ProjectState, userId: string): ProjectEvent[] {
  return state.members[userId] === undefined ? [] : [{ type: 'ProjectMemberRemoved', data: { userId } }];
}

/** The project aggregate and its command vocabulary. */
export const project = defineAggregate(evolution, {
  create: decideCreate,
  update: decideUpdate,
  attach: decideAttach,
  detach: decideDetach,
  delete: decideDelete,
  retire: decideRetire,
  setMember: decideSetMember,
  removeMember: decideRemoveMember,
});
