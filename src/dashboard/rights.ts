import { computed } from '@preact/signals';
import { session } from './session.js';

/** Owners, admins and all-project write keys: people and invitations (the API's `requirePeopleAdmin`). */
export const managesPeople = computed(() => session.value?.access === 'write' && session.value.projectIds === null);

/** Owners and all-project write keys: people's roles and their removal, owners invited (`requireInstallation`). */
export const ownsInstallation = computed(() => managesPeople.value && (session.value!.role === null || session.value!.role === 'owner'));
