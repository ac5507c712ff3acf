import { defineAggregate, type Evolution } from '../shared/aggregate.js';
import { conflict, notFound } from '../shared/domain-error.js';
import { parseUserEvent, type UserEvent } from './events.js';
import type { InstallationRole } from './roles.js';

export interface UserState {
  status: 'none' | 'active' | 'removed';
  role: InstallationRole;
  erased: boolean;
  twoFactor: boolean;
}

const evolution: Evolution<UserState, UserEvent> = {
  category: 'user',
  initial: { status: 'none', role: 'member', erased: false, twoFactor: false },
  evolve(state, event) {
    switch (event.type) {
      case 'UserCreated':
        return { ...state, status: 'active', role: event.data.role };
      case 'UserRoleChanged':
        return { ...state, role: event.data.role };
      case 'UserRemoved':
        return { ...state, status: 'removed' };
      case 'UserErased':
        return { ...state, erased: true };
      case 'UserTwoFactorEnabled':
        return { ...state, twoFactor: true };
      case 'UserTwoFactorDisabled':
        return { ...state, twoFactor: false };
      case 'UserRenamed':
      case 'UserPasswordChanged':
        return state;
    }
  },
  parse: parseUserEvent,
};

function active(state: UserState): UserState {
  if (state.status !== 'active') throw notFound('user');
  return state;
}

interface CreateUser {
  role: InstallationRole;
  sealedEmail: string;
  sealedName: string;
  invitationId: string | null;
}

function decideCreate(state: UserState, input: CreateUser): UserEvent[] {
  if (state.status !== 'none') throw conflict('user already exists');
  return [{ type: 'UserCreated', data: input }];
}

function decideRename(state: UserState, sealedName: string): UserEvent[] {
  active(state);
  return [{ type: 'UserRenamed', data: { sealedName } }];
}

function decideChangeRole(state: UserState, role: InstallationRole): UserEvent[] {
  return active(state).role === role ? [] : [{ type: 'UserRoleChanged', data: { role } }];
}

function decideChangePassword(state: UserState): UserEvent[] {
  active(state);
  return [{ type: 'UserPasswordChanged', data: {} }];
}

function decideRemove(state: UserState): UserEvent[] {
  if (state.status === 'none') throw notFound('user');
  return state.status === 'removed' ? [] : [{ type: 'UserRemoved', data: {} }];
}

/** Erasure follows a removal (the same request may do both); erasing twice says nothing. */
function decideErase(state: UserState): UserEvent[] {
  if (state.status === 'none') throw notFound('user');
  if (state.status === 'active') throw conflict('remove the person before erasing them');
  return state.erased ? [] : [{ type: 'UserErased', data: {} }];
}

/** Turning two factors on again (new secret, new recovery codes) is recorded each time. */
function decideEnableTwoFactor(state: UserState): UserEvent[] {
  active(state);
  return [{ type: 'UserTwoFactorEnabled', data: {} }];
}

function decideDisableTwoFactor(state: UserState): UserEvent[] {
  return active(state).twoFactor ? [{ type: 'UserTwoFactorDisabled', data: {} }] : [];
}

/** The user aggregate (a person with an account) and its command vocabulary. */
export const user = defineAggregate(evolution, {
  create: decideCreate,
  rename: decideRename,
  changeRole: decideChangeRole,
  changePassword: decideChangePassword,
  enableTwoFactor: decideEnableTwoFactor,
  disableTwoFactor: decideDisableTwoFactor,
  remove: decideRemove,
  erase: decideErase,
});
