import { defineAggregate, type Evolution } from '../shared/aggregate.js';
import { conflict, DomainError, notFound } from '../shared/domain-error.js';
import type { InstallationRole, ProjectGrant } from '../user/roles.js';
import { parseInvitationEvent, type InvitationEvent } from './events.js';

export interface InvitationState {
  status: 'none' | 'pending' | 'accepted' | 'revoked';
  role: InstallationRole;
  projects: readonly ProjectGrant[];
  expiresAt: string;
  sealedEmail: string;
}

const evolution: Evolution<InvitationState, InvitationEvent> = {
  category: 'invitation',
  initial: { status: 'none', role: 'member', projects: [], expiresAt: '', sealedEmail: '' },
  evolve(state, event) {
    switch (event.type) {
      case 'InvitationCreated':
        return { status: 'pending', role: event.data.role, projects: event.data.projects, expiresAt: event.data.expiresAt, sealedEmail: event.data.sealedEmail };
      case 'InvitationAccepted':
        return { ...state, status: 'accepted' };
      case 'InvitationRevoked':
        return { ...state, status: 'revoked' };
    }
  },
  parse: parseInvitationEvent,
};

/** A used, expired or revoked invitation: the same answer for each, so a token says nothing about its past. */
export const invitationGone = () => new DomainError('invitation_gone', 'this invitation was used, revoked or has expired: ask for a new one');

interface CreateInvitation {
  sealedEmail: string;
  role: InstallationRole;
  projects: ProjectGrant[];
  tokenHash: string;
  expiresAt: string;
}

function decideCreate(state: InvitationState, input: CreateInvitation): InvitationEvent[] {
  if (state.status !== 'none') throw conflict('invitation already exists');
  return [{ type: 'InvitationCreated', data: input }];
}

function decideAccept(state: InvitationState, input: { userId: string; now: Date }): InvitationEvent[] {
  if (state.status !== 'pending' || Date.parse(state.expiresAt) <= input.now.getTime()) throw invitationGone();
  return [{ type: 'InvitationAccepted', data: { userId: input.userId } }];
}

function decideRevoke(state: InvitationState): InvitationEvent[] {
  if (state.status === 'none') throw notFound('invitation');
  return state.status === 'pending' ? [{ type: 'InvitationRevoked', data: {} }] : [];
}

/** The invitation aggregate and its command vocabulary. */
export const invitation = defineAggregate(evolution, {
  create: decideCreate,
  accept: decideAccept,
  revoke: decideRevoke,
});
