import type { Project } from './projects-store.js';

/** Something the palette can do: open a page, or run an action on a service. */
export interface PaletteEntry {
  id: string;
  label: string;
  /** Where it is, shown beside the label: the project of a service. */
  hint: string;
  kind: 'page' | 'action';
  run: { to: string } | { action: 'deploy' | 'restart' | 'rollback'; serviceId: string; serviceName: string };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Every page and action the key can reach, from the projects it sees; actions only for a write key. */
export function paletteEntries(projects: readonly Project[], canWrite: boolean): PaletteEntry[] {
  const entries: PaletteEntry[] = [
    { id: 'page:projects', label: 'Projects', hint: 'Go to', kind: 'page', run: { to: '/' } },
    { id: 'page:audit', label: 'Audit log', hint: 'Go to', kind: 'page', run: { to: '/audit' } },
    { id: 'page:installation', label: 'Installation', hint: 'Go to', kind: 'page', run: { to: '/installation' } },
  ];
  for (const project of projects) {
    entries.push({ id: `project:${project.id}`, label: project.name, hint: 'Project', kind: 'page', run: { to: `/projects/${project.id}` } });
    for (const service of project.services) {
      entries.push({ id: `service:${service.id}`, label: service.name, hint: project.name, kind: 'page', run: { to: `/services/${service.id}` } });
      if (!canWrite) continue;
      const on = { serviceId: service.id, serviceName: service.name };
      entries.push(
        { id: `deploy:${service.id}`, label: `Deploy ${service.name}`, hint: project.name, kind: 'action', run: { action: 'deploy', ...on } },
        { id: `restart:${service.id}`, label: `Restart ${service.name}`, hint: project.name, kind: 'action', run: { action: 'restart', ...on } },
        { id: `rollback:${service.id}`, label: `Roll back ${service.name}`, hint: `${project.name} · to the release before the current one`, kind: 'action', run: { action: 'rollback', ...on } },
      );
    }
  }
  return entries;
}

/**
 * The entries that match what was typed, best first: every word must occur in the label or the hint; a label
 * that starts with the query comes first, then one where a word does. A deployment's id opens its page.
 */
export function matchEntries(entries: readonly PaletteEntry[], query: string, limit = 12): PaletteEntry[] {
  const text = query.trim().toLowerCase();
  if (UUID.test(text)) return [{ id: `deployment:${text}`, label: `Deployment ${text.slice(0, 8)}`, hint: 'Open its log', kind: 'page', run: { to: `/deployments/${text}` } }];
  const words = text.split(/\s+/).filter(Boolean);
  const rank = (e: PaletteEntry) => {
    const label = e.label.toLowerCase();
    if (label.startsWith(text)) return 0;
    if (label.split(/\s+/).some((w) => w.startsWith(words[0] ?? ''))) return 1;
    return 2;
  };
  return entries
    .filter((e) => words.every((w) => `${e.label} ${e.hint}`.toLowerCase().includes(w)))
    .map((e, i) => ({ e, i, r: rank(e) }))
    .sort((a, b) => a.r - b.r || a.i - b.i)
    .slice(0, limit)
    .map(({ e }) => e);
}
