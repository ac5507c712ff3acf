import type { Project } from './projects-store.js';

export interface Crumb {
  label: string;
  /** Where it leads; none for the screen itself. */
  href?: string;
}

/** Where a page address sits: Projects › project › service, or the one screen it is. */
export function trailOf(path: string, projects: readonly Project[]): Crumb[] {
  const service = /^\/services\/([^/]+)$/.exec(path);
  if (service) {
    const project = projects.find((p) => p.services.some((s) => s.id === service[1]));
    const name = project?.services.find((s) => s.id === service[1])?.name;
    return [{ label: 'Projects', href: '/' }, ...(project ? [{ label: project.name, href: `/projects/${project.id}` }] : []), { label: name ?? 'Service' }];
  }
  const project = /^\/projects\/([^/]+)$/.exec(path);
  if (project) return [{ label: 'Projects', href: '/' }, { label: projects.find((p) => p.id === project[1])?.name ?? 'Project' }];
  if (path.startsWith('/deployments/')) return [{ label: 'Projects', href: '/' }, { label: 'Deployment' }];
  if (path === '/') return [{ label: 'Projects' }];
  if (path === '/audit' || path === '/history') return [{ label: 'Audit log' }];
  if (path === '/installation') return [{ label: 'Installation' }];
  if (path === '/account') return [{ label: 'My account' }];
  return [{ label: 'Not found' }];
}
