import type { FailureContext } from '../../src/integrations/ai/explanation.js';

/** A deployment and a repository as the explanation rules' tests name them. */
export const DEPLOYMENT = '01936f6e-8a2b-7c3d-9e4f-5a6b7c8d9e0f';
export const REPO = 'http://127.0.0.1:39411/acme/shop.git';

export type ServiceSettings = FailureContext['service'];

/** A web service built from Git with every build setting left to its default. */
export const baseService: ServiceSettings = {
  kind: 'source',
  repoUrl: REPO,
  dockerImage: null,
  branch: 'main',
  rootDir: null,
  buildMethod: 'auto',
  dockerfilePath: null,
  installCommand: null,
  buildCommand: null,
  startCommand: null,
  internalPort: 8080,
  runtimeMode: 'web',
  engine: null,
};

/** What an explanation is given of a deployment that failed with `reason` (null: none recorded) after `lines`. */
export function failureContextOf(
  reason: string | null,
  lines: string[],
  options: { service?: Partial<ServiceSettings>; variableNames?: string[]; detectedBuildMethod?: string | null } = {},
): FailureContext {
  return {
    deployment: { id: DEPLOYMENT, failureReason: reason, detectedBuildMethod: options.detectedBuildMethod ?? null },
    service: { ...baseService, ...options.service },
    variableNames: options.variableNames ?? [],
    logLines: reason === null ? lines : [...lines, `Deployment failed: ${reason}`],
  };
}
