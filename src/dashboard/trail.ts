import type { Project } from './projects-store.js';

export interface Crumb {
  label: string;
  /** Where it leads; none for the screen itself and for a project (it has no screen of its own). */
  href?: string;
}

/** Where a page address sits: Projects › project › service, or the one screen it is. */
export function trailOf(path: string, projects: readonly Project[]): Crumb[] {
  const service = /^\/services\/([^/]+)$/.exec(path);
  if (service) {
    const project = projects.find((p) => p.services.some((s) => s.id === service[1]));
    const name = project?.services.find((s) => s.id === service[1])?.name;
    return [{ label: 'Projects', href: '/' }, ...(project ? [{ label: project.name }] : []), { label: name ?? 'Service' }];
  }
  if (path === '/') return [{ label: 'Projects' }];
  if (path === '/audit' || path === '/history') return [{ label: 'Audit log' }];
  if (path === '/installation') return [{ label: 'Installation' }];
  return [{ label: 'Not found' }];
}
