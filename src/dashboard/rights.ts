import { computed } from '@preact/signals';
import { session } from './session.js';

/**
 * Owners and admins signed in as themselves: the People tab, and adding people to a project. The API also lets an
 * all-project write key manage people (the CLI does); the dashboard leaves that to the people who own it.
 */
export const managesPeople = computed(() => session.value?.role === 'owner' || session.value?.role === 'admin');

/** Owners: people's roles and their removal, owners invited (`requireInstallation`). */
export const ownsInstallation = computed(() => session.value?.role === 'owner');
