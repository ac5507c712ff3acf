import { z } from 'zod';

// ApiKeyCreated v1 said "every project" with `projectIds: null`; v2 names the scope.
const apiKeyCreatedV1 = z.looseObject({ projectIds: z.array(z.string()).nullable() });

export function apiKeyCreatedV1toV2(data: Record<string, unknown>): Record<string, unknown> {
  const { projectIds, ...rest } = apiKeyCreatedV1.parse(data);
  const scope = projectIds === null ? { kind: 'all' } : { kind: 'projects', projectIds: [...new Set(projectIds)] };
  return { ...rest, scope };
}

/** Version 3 names the person a key belongs to; every earlier key belongs to no one (an installation key). */
export function apiKeyCreatedV2toV3(data: Record<string, unknown>): Record<string, unknown> {
  return { ...data, ownerUserId: null };
}
