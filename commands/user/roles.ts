import { z } from 'zod';

/** What a person may do across the installation: owner (everything), admin (every project, not people or settings), member (their projects). */
export const installationRole = z.enum(['owner', 'admin', 'member']);
export type InstallationRole = z.infer<typeof installationRole>;

/** What a member may do in one project: admin (everything there), deployer (run it, not shape it), viewer (read, secrets masked). */
export const projectRole = z.enum(['admin', 'deployer', 'viewer']);
export type ProjectRole = z.infer<typeof projectRole>;

export const projectGrant = z.object({ projectId: z.string(), role: projectRole });
export type ProjectGrant = z.infer<typeof projectGrant>;
