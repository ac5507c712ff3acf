import { request } from 'node:https';
import type { RegistryAccess } from './registry.js';

/** The cluster's registry as Slipway reaches it: its address and user, and the authority its certificate is from. */
export interface RegistryEndpoint {
  access: RegistryAccess;
  caPem: string;
}

/** Every manifest form a push of Slipway's can leave: Docker's and OCI's, single image or list. */
const MANIFEST_TYPES = [
  'application/vnd.docker.distribution.manifest.v2+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.oci.image.index.v1+json',
].join(', ');

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function call(registry: RegistryEndpoint, method: string, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  const [host, port] = registry.access.address.split(':') as [string, string | undefined];
  return new Promise((resolve, reject) => {
    const req = request(
      { host, port: Number(port ?? 443), method, path, ca: registry.caPem, timeout: 15_000, auth: `${registry.access.username}:${registry.access.password}`, headers },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`the registry did not answer ${method} ${path} within 15 s`)));
    req.on('error', reject);
    req.end();
  });
}

const unexpected = (what: string, answer: Answer) => new Error(`the registry answered ${answer.status} to ${what}: ${answer.body.slice(0, 200)}`);

/** The repository's tags; none when it does not exist (never pushed, or every manifest deleted). */
export async function listTags(registry: RegistryEndpoint, repository: string): Promise<string[]> {
  const tags: string[] = [];
  let path: string | null = `/v2/${repository}/tags/list?n=1000`;
  while (path) {
    const answer = await call(registry, 'GET', path);
    if (answer.status === 404) return tags;
    if (answer.status !== 200) throw unexpected(`the tags of ${repository}`, answer);
    tags.push(...((JSON.parse(answer.body) as { tags: string[] | null }).tags ?? []));
    // The next page, when there is one: `Link: </v2/...?last=x&n=1000>; rel="next"`.
    path = /<([^>]+)>;\s*rel="next"/.exec(String(answer.headers.link ?? ''))?.[1] ?? null;
  }
  return tags;
}

/** The digest a tag points at; null when the tag is gone. */
export async function manifestDigest(registry: RegistryEndpoint, repository: string, tag: string): Promise<string | null> {
  const answer = await call(registry, 'HEAD', `/v2/${repository}/manifests/${encodeURIComponent(tag)}`, { accept: MANIFEST_TYPES });
  if (answer.status === 404) return null;
  const digest = answer.headers['docker-content-digest'];
  if (answer.status !== 200 || typeof digest !== 'string') throw unexpected(`HEAD of ${repository}:${tag}`, answer);
  return digest;
}

/** Deletes a manifest and with it every tag that points at it; its layers go at the next garbage collection. */
export async function deleteManifest(registry: RegistryEndpoint, repository: string, digest: string): Promise<void> {
  const answer = await call(registry, 'DELETE', `/v2/${repository}/manifests/${digest}`);
  if (answer.status !== 202 && answer.status !== 404) throw unexpected(`the deletion of ${repository}@${digest}`, answer);
}
