import { createHmac } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { isIP } from 'node:net';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import type Docker from 'dockerode';
import { authorityTools } from '../engines/authority-tools.js';
import type { PemKeyPair } from '../engines/tls-authority.js';
import { LABEL } from '../runtime/container-runtime.js';
import { LogDemuxer } from '../runtime/docker-streams.js';
import { ensureConfiguredContainer, followProgress, localImageId } from './configured-container.js';
import { authorityFingerprint } from './registry-authority.js';

/**
 * The cluster's private image registry: a `registry:2` container on the manager, TLS from the registry's own
 * authority (registry-authority.ts) and one htpasswd (bcrypt) user, so every node pulls release images by digest.
 */

export interface RegistryAccess {
  /** host:port as the nodes dial it (the manager's advertise address and the published port). */
  address: string;
  username: string;
  password: string;
}

export interface RegistryOptions {
  image: string;
  /** The manager's address the nodes dial: the certificate's name and where readiness is checked. */
  advertiseAddress: string;
  /** Published on every address of the manager. */
  port: number;
  /** Signs the registry's server certificate; the nodes' engines must trust its certificate (trustRegistryAuthority). */
  authority: PemKeyPair;
  access: RegistryAccess;
  /** How long to wait for the registry to answer; 30 s by default. */
  readyTimeoutMs?: number;
}

export const REGISTRY_CONTAINER = 'slipway-registry';
/** Where a service's release images are pushed, each tagged with its deployment's id. */
export const releaseRepository = (serviceId: string) => `slipway/${serviceId}`;
export const REGISTRY_VOLUME = 'slipway-registry-data';
const ROLE_LABEL = 'slipway.role';
const CONFIG_LABEL = 'slipway.registry.config';
const EXPIRES_LABEL = 'slipway.registry.certificate-expires';
/** Which authority signed the running registry's certificate: a registry from before it had its own carries none. */
const AUTHORITY_LABEL = 'slipway.registry.authority';
/** The official image's port, config directory and storage. */
const CONTAINER_PORT = '5000/tcp';
const FILES_DIR = '/etc/docker/registry/slipway';
const STORAGE_DIR = '/var/lib/registry';
const RENEW_BEFORE_MS = 30 * 86_400_000;
/** An unknown cache type turns the registry's layer cache off (distribution's storage cache setting). */
export const REGISTRY_CACHE_OFF = ['REGISTRY_STORAGE_CACHE_BLOBDESCRIPTOR=none'];

export function registryAuth(access: RegistryAccess): { username: string; password: string; serveraddress: string } {
  return { username: access.username, password: access.password, serveraddress: access.address };
}

/** Writes the CA where a Docker engine looks for a registry's CA: `<certsDir>/<address>/ca.crt`. */
export function trustRegistryAuthority(address: string, caPem: string, certsDir = '/etc/docker/certs.d'): void {
  const dir = join(certsDir, address);
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  writeFileSync(join(dir, 'ca.crt'), caPem, { mode: 0o644 });
}

/**
 * Starts the registry container on the manager's engine, or leaves the running one alone when it was made
 * from the same image, address, credentials and authority. A different one is replaced; its data volume stays.
 * Returns once the registry answers over TLS, refusing requests without the credentials.
 */
export async function ensureRegistry(docker: Docker, opts: RegistryOptions): Promise<void> {
  const { access, authority, advertiseAddress: host, port } = opts;
  if (!/^[^:\s]+$/.test(access.username)) throw new Error(`a registry user name cannot be empty or contain ':' or whitespace (got ${JSON.stringify(access.username)})`);
  const imageId = await localImageId(docker, opts.image);
  // Keyed by the authority's key: the label tells configurations apart without exposing the password to `docker inspect`.
  const config = createHmac('sha256', authority.keyPem)
    .update(JSON.stringify([imageId, host, port, access.address, access.username, access.password, authority.certPem, REGISTRY_CACHE_OFF]))
    .digest('hex');

  await ensureConfiguredContainer(docker, {
    name: REGISTRY_CONTAINER,
    stampLabel: CONFIG_LABEL,
    stamp: config,
    // A certificate close to its end is replaced with the container rather than left to expire.
    keep: (labels) => Date.parse(labels[EXPIRES_LABEL] ?? '') - Date.now() > RENEW_BEFORE_MS,
    build: async () => {
      const names = isIP(host) ? { dnsNames: ['localhost'], ipAddresses: [host, '127.0.0.1'] } : { dnsNames: [host, 'localhost'], ipAddresses: ['127.0.0.1'] };
      const { certificateExpiresAt, issueServerCertificate } = await authorityTools();
      const server = await issueServerCertificate(authority, names);
      return {
        options: {
          Image: imageId,
          Env: [
            `REGISTRY_HTTP_TLS_CERTIFICATE=${FILES_DIR}/server.crt`,
            `REGISTRY_HTTP_TLS_KEY=${FILES_DIR}/server.key`,
            'REGISTRY_AUTH=htpasswd',
            'REGISTRY_AUTH_HTPASSWD_REALM=Slipway registry',
            `REGISTRY_AUTH_HTPASSWD_PATH=${FILES_DIR}/htpasswd`,
            'REGISTRY_STORAGE_DELETE_ENABLED=true',
            // No cache of which layers exist: after a garbage collection it would still say a deleted layer is
            // there, a push would skip uploading it, and the image would not pull.
            ...REGISTRY_CACHE_OFF,
          ],
          Labels: {
            [LABEL.managed]: 'true',
            [ROLE_LABEL]: 'registry',
            [EXPIRES_LABEL]: certificateExpiresAt(server.certPem).toISOString(),
            [AUTHORITY_LABEL]: authorityFingerprint(authority.certPem),
          },
          ExposedPorts: { [CONTAINER_PORT]: {} },
          HostConfig: {
            // Every address of the manager: the other nodes dial its advertise address.
            PortBindings: { [CONTAINER_PORT]: [{ HostIp: '', HostPort: String(port) }] },
            RestartPolicy: { Name: 'unless-stopped' },
            Mounts: [{ Type: 'volume', Source: REGISTRY_VOLUME, Target: STORAGE_DIR }],
            LogConfig: { Type: 'json-file', Config: { 'max-size': '10m', 'max-file': '3' } },
          },
        },
        files: [
          { path: FILES_DIR, mode: 0o700 },
          { path: `${FILES_DIR}/server.crt`, mode: 0o644, content: server.certPem },
          { path: `${FILES_DIR}/server.key`, mode: 0o600, content: server.keyPem },
          { path: `${FILES_DIR}/htpasswd`, mode: 0o600, content: `${access.username}:${bcrypt.hashSync(access.password, 10)}\n` },
        ],
      };
    },
  });
  await waitUntilServing(docker, { host, port }, opts);
}

/** The fingerprint of the authority whose certificate the registry container serves; null without a registry or label. */
export async function registryAuthorityOf(docker: Docker): Promise<string | null> {
  const info = await docker
    .getContainer(REGISTRY_CONTAINER)
    .inspect()
    .catch((error: { statusCode?: number }) => {
      if (error.statusCode === 404) return null;
      throw error;
    });
  return info?.Config.Labels[AUTHORITY_LABEL] ?? null;
}

/** GET /v2/ over TLS with the authority as the only trusted root; the HTTP status. */
function probe(target: { host: string; port: number }, ca: string, credentials?: { username: string; password: string }): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: target.host, port: target.port, path: '/v2/', ca, timeout: 5_000, ...(credentials ? { auth: `${credentials.username}:${credentials.password}` } : {}) },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('timeout', () => req.destroy(new Error('no answer within 5 s')));
    req.on('error', reject);
    req.end();
  });
}

async function waitUntilServing(docker: Docker, target: { host: string; port: number }, opts: RegistryOptions): Promise<void> {
  const deadline = Date.now() + (opts.readyTimeoutMs ?? 30_000);
  const failure = async (why: string) =>
    new Error(`the registry ${REGISTRY_CONTAINER} did not answer at https://${opts.access.address}/v2/ (${why}); its last log lines:\n${await lastLogLines(docker)}`);
  let last = 'no answer yet';
  for (;;) {
    const state = (await docker.getContainer(REGISTRY_CONTAINER).inspect()).State;
    // Exited and not restarting: waiting longer cannot help.
    if (!state.Running && !state.Restarting) throw await failure(`the container is ${state.Status}, exit code ${state.ExitCode}`);
    const status = await probe(target, opts.authority.certPem, opts.access).catch((error: Error) => {
      last = error.message;
      return undefined;
    });
    if (status === 200) {
      const anonymous = await probe(target, opts.authority.certPem);
      if (anonymous !== 401) throw new Error(`the registry at ${opts.access.address} answers ${anonymous} without credentials; expected 401`);
      return;
    }
    if (status !== undefined) last = `GET /v2/ with the credentials answered ${status}`;
    if (Date.now() >= deadline) throw await failure(last);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function lastLogLines(docker: Docker): Promise<string> {
  try {
    const raw = await docker.getContainer(REGISTRY_CONTAINER).logs({ stdout: true, stderr: true, tail: 20, follow: false });
    const demuxer = new LogDemuxer(false);
    return [...demuxer.push(raw), ...demuxer.end()].map((l) => l.line).join('\n');
  } catch (error) {
    return `(its logs could not be read: ${(error as Error).message})`;
  }
}

/**
 * Tags a local image as `<address>/<repository>:<tag>`, pushes it and returns the reference by digest,
 * `<address>/<repository>@sha256:…`, which every node pulls unchanged.
 */
export async function pushImage(docker: Docker, imageId: string, repository: string, tag: string, access: RegistryAccess): Promise<string> {
  const name = `${access.address}/${repository}`;
  await docker.getImage(imageId).tag({ repo: name, tag });
  const stream = (await docker.getImage(`${name}:${tag}`).push({ authconfig: registryAuth(access) })) as NodeJS.ReadableStream;
  const messages = await followProgress(docker, stream);
  const digest =
    messages.find((m) => m.aux?.Digest)?.aux?.Digest ??
    messages.map((m) => /digest: (sha256:[0-9a-f]{64})/.exec(m.status ?? '')?.[1]).find((d) => d !== undefined);
  if (!digest) throw new Error(`the push of ${name}:${tag} finished without a digest`);
  return `${name}@${digest}`;
}
