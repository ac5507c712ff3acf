import type { ProjectName } from './types.js';

/** A person's or an invitation's projects in words: `Shop (deployer), Blog (admin)`. */
export const projectGrants = (grants: readonly { projectId: string; role: string }[], projects: readonly ProjectName[]): string =>
  grants.map((g) => `${projects.find((p) => p.id === g.projectId)?.name ?? 'a deleted project'} (${g.role})`).join(', ');
