import { z } from 'zod';
import { endpoint, type Endpoint } from './endpoint.js';

const TAG = 'Git remote';
const AUTH = 'HTTP Basic auth: the password is an API key (the user name is ignored), as git sends it from a credential helper. ';
const FETCH = 'Fetching needs a key that sees the project; ';
const PUSH = 'pushing needs a write key. A push to the service’s branch runs the deployment of the pushed commit inside the push: its lines come back as `remote:` lines, and the ref moves only when the deployment succeeded. A push to another branch is stored and deploys nothing.';

/** The smart HTTP protocol's three requests under one remote's path (`/git/:serviceId.git` or by slugs). */
function remote(prefix: string, operationSuffix: string, where: string) {
  return {
    [`refs${operationSuffix}`]: endpoint({
      method: 'get',
      path: `${prefix}/info/refs`,
      operationId: `gitRefs${operationSuffix}`,
      tag: TAG,
      summary: `The remote’s refs (${where}): the start of \`git fetch\` and \`git push\``,
      description: `${AUTH}${FETCH}${PUSH} Only the smart protocol (git 2 or later) is served; other \`service\` values are refused (403).`,
      access: 'read',
      auth: 'basic',
      query: z.object({ service: z.enum(['git-upload-pack', 'git-receive-pack']) }),
      rawResponse: { mediaType: 'application/x-git-upload-pack-advertisement', description: 'The refs advertisement (`application/x-git-receive-pack-advertisement` for a push).' },
      errors: [403],
    }),
    [`uploadPack${operationSuffix}`]: endpoint({
      method: 'post',
      path: `${prefix}/git-upload-pack`,
      operationId: `gitUploadPack${operationSuffix}`,
      tag: TAG,
      summary: `Fetch from the remote (${where})`,
      description: `${AUTH}${FETCH}the objects the client asks for.`,
      access: 'read',
      auth: 'basic',
      rawBody: { mediaType: 'application/x-git-upload-pack-request', description: 'What git wants and has.' },
      rawResponse: { mediaType: 'application/x-git-upload-pack-result', description: 'A pack of the objects asked for.' },
    }),
    [`receivePack${operationSuffix}`]: endpoint({
      method: 'post',
      path: `${prefix}/git-receive-pack`,
      operationId: `gitReceivePack${operationSuffix}`,
      tag: TAG,
      summary: `Push to the remote (${where})`,
      description: `${AUTH}${PUSH}`,
      access: 'write',
      auth: 'basic',
      rawBody: { mediaType: 'application/x-git-receive-pack-request', description: 'The ref updates and a pack of the pushed objects.' },
      rawResponse: { mediaType: 'application/x-git-receive-pack-result', description: 'The result of each ref update, with the deployment’s lines as `remote:` progress.' },
    }),
  } satisfies Record<string, Endpoint>;
}

/** Each Git-source service’s remote, served by `git http-backend` (src/http/routes/git.ts). */
export const gitApi = {
  ...remote('/git/:serviceId.git', 'ById', 'by service id'),
  ...remote('/git/:projectSlug/:serviceSlug.git', 'BySlug', 'by project and service slug'),
};
