import { signal } from '@preact/signals';
import { api, messageOf, type GetAnswer } from './api.js';

export type Project = GetAnswer<'/api/projects'>['projects'][number];

/** The projects the key sees, with their services: the projects screen, the sidebar and the breadcrumbs read it. */
export const projects = signal<Project[] | null>(null);

let reading: Promise<string | null> | null = null;
let latest = 0;

/**
 * Reads the projects again; its error's message, or null. Calls in the same moment (the shell and a screen
 * opening together) share one request; a call after a request started makes a new one, so it sees its own changes,
 * and an answer that arrives after a newer one's is dropped.
 */
export function loadProjects(): Promise<string | null> {
  reading ??= Promise.resolve().then(async () => {
    reading = null;
    const mine = ++latest;
    const { data, error } = await api.GET('/api/projects');
    if (error) return messageOf(error);
    if (mine === latest) projects.value = data.projects;
    return null;
  });
  return reading;
}
