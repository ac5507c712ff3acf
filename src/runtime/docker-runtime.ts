import { lstatSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import Docker from 'dockerode';
import { pack, type Headers } from 'tar-fs';
import { pack as tarPack } from 'tar-stream';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  LABEL,
  type ContainerRuntime,
  type ContainerFile,
  type ContainerSpec,
  type NetworkAddresses,
  type OwnedContainer,
  type OwnedImage,
  type OutputLine,
  type RunningContainer,
} from './container-runtime.js';
import { privilegedHostConfig } from './container-privileges.js';
import { execIn } from './docker-exec.js';
import { openShellIn } from './docker-shell.js';
import { usageReadings } from './docker-stats.js';
import { followProgress, LogDemuxer } from './docker-streams.js';
import { registryFailureText } from '../outbound/outside-answers.js';
import { labelFinalStage } from '../build/final-stage-labels.js';
import { hasLabels, listedLabels } from './image-deployment.js';

const LABELLED_DOCKERFILE = '.slipway-build.Dockerfile';

/**
 * Whether a path of the build context stays out of the archive: `.git`, a file of the context that has the
 * name of the Dockerfile entry Slipway adds, and anything tar-fs cannot pack as it is (it packs links as
 * links and files by content; a fifo or device would fail the whole archive, so it is left out).
 */
function leftOutOfContext(contextDir: string, path: string): boolean {
  const inside = path.slice(contextDir.length);
  if (/(^|\/)\.git(\/|$)/.test(inside) || inside === `/${LABELLED_DOCKERFILE}`) return true;
  try {
    const stats = lstatSync(path);
    return !(stats.isFile() || stats.isDirectory() || stats.isSymbolicLink());
  } catch {
    return true;
  }
}

/**
 * Modes as Git knows them (it keeps only the executable bit): 0644 or 0755, directories 0755. The checkout is
 * made under Slipway's umask (077), and an image whose app runs as another user must still read its files.
 */
function gitMode(header: Headers): Headers {
  if (header.type === 'directory') return { ...header, mode: 0o755 };
  if (header.type === 'file') return { ...header, mode: (header.mode ?? 0) & 0o100 ? 0o755 : 0o644 };
  return header;
}

/** The Dockerfile with every label set by a LABEL step at its end, over anything it set itself. */
function withLastLabel(dockerfile: string, labels: Record<string, string>): string {
  return `${dockerfile.trimEnd()}\nLABEL ${Object.entries(labels).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(' ')}\n`;
}

/** The image carries exactly the labels asked for, and no deployment label the Dockerfile set itself. */
function labelledAs(info: Docker.ImageInspectInfo, wanted: Record<string, string>): boolean {
  const labels = info.Config?.Labels ?? {};
  return LABEL.deployment in labels ? false : Object.entries(wanted).every(([k, v]) => labels[k] === v);
}

/** A loopback port nothing listens on right now. */
function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const statusOf = (error: unknown) => (error as { statusCode?: number }).statusCode;

/** Removes each in turn; one already gone (404) is not an error. Answers the names removed. */
async function removeEach(items: { name: string; remove: () => Promise<unknown> }[]): Promise<string[]> {
  const removed: string[] = [];
  for (const item of items) {
    try {
      await item.remove();
      removed.push(item.name);
    } catch (error) {
      if (statusOf(error) !== 404) throw error;
    }
  }
  return removed;
}

/** A tar archive of the files, with their owners and modes, for the engine's archive upload. */
async function archiveOf(files: ContainerFile[]): Promise<Buffer> {
  const archive = tarPack();
  for (const f of files) {
    archive.entry({ name: f.path.replace(/^\/+/, ''), mode: f.mode, uid: f.uid, gid: f.gid }, f.content);
  }
  archive.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of archive) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const labelFilter = (labels: Record<string, string>) => Object.entries(labels).map(([k, v]) => `${k}=${v}`);

/** Short engine calls get a deadline; streams (build, pull, logs) are bounded by their caller's signal. */
async function within<T>(ms: number, what: string, call: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the Docker engine did not answer ${what} within ${ms / 1000} s`)), ms);
  });
  try {
    return await Promise.race([call(), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

export interface DockerRuntimeOptions {
  socketPath: string;
  /** Another engine than the one at `socketPath`: a cluster node's, through its agent. */
  docker?: Docker;
  /** Stamped on everything created and required of everything listed. */
  instance: string;
  /** Deadline for short calls (ping, inspect, create, start, remove), in milliseconds. */
  callTimeoutMs: number;
}

/** Docker through dockerode; everything it creates carries `slipway.managed=true` and the instance label. */
export function createDockerRuntime(options: DockerRuntimeOptions): ContainerRuntime {
  const docker = options.docker ?? new Docker({ socketPath: options.socketPath });
  const owned = { [LABEL.managed]: 'true', [LABEL.instance]: options.instance };
  const ownedFilter = (labels: Record<string, string>) => ({ label: labelFilter({ ...labels, ...owned }) });
  const call = <T>(what: string, fn: () => Promise<T>) => within(options.callTimeoutMs, what, fn);

  async function publishedPort(info: Docker.ContainerInspectInfo, internalPort: number | null): Promise<number | null> {
    if (internalPort === null) return null;
    const binding = info.NetworkSettings.Ports?.[`${internalPort}/tcp`]?.[0];
    return binding ? Number(binding.HostPort) : null;
  }

  /**
   * The engine sets `OOMKilled` when containerd's OOM event reaches it, which may be after the exit was seen: a
   * container with a memory limit that ended with 137 waits up to a second for that event.
   */
  const killedForMemory = async (name: string, info: Docker.ContainerInspectInfo): Promise<boolean> => {
    if (info.State.OOMKilled) return true;
    if (info.State.ExitCode !== 137 || !(info.HostConfig.Memory && info.HostConfig.Memory > 0)) return false;
    const since = Math.floor(Date.parse(info.State.StartedAt) / 1000);
    return call('events', async () => {
      const stream = await docker.getEvents({ since, until: Math.ceil(Date.now() / 1000) + 1, filters: { type: ['container'], container: [name], event: ['oom'] } });
      let text = '';
      for await (const chunk of stream) text += String(chunk);
      return text.trim() !== '';
    }).catch(() => false);
  };

  const inspect = async (name: string) => {
    try {
      return await call('inspect', () => docker.getContainer(name).inspect());
    } catch (error) {
      if (statusOf(error) === 404) return null;
      throw error;
    }
  };

  async function ensureVolume(name: string, labels: Record<string, string>) {
    try {
      await call('inspectVolume', () => docker.getVolume(name).inspect());
    } catch (error) {
      if (statusOf(error) !== 404) throw error;
      await call('createVolume', () => docker.createVolume({ Name: name, Labels: { ...labels, ...owned } }));
    }
  }

  const creatingNetworks = new Map<string, Promise<void>>();
  async function ensureOneNetwork(name: string, labels: Record<string, string>) {
    const existing = (await call('listNetworks', () => docker.listNetworks({ filters: { name: [name] } }))).filter((n) => n.Name === name);
    // Duplicates an earlier version made make the name ambiguous to the engine: keep the oldest.
    const [, ...extra] = existing.sort((a, b) => Date.parse(a.Created) - Date.parse(b.Created));
    for (const n of extra) await call('removeNetwork', () => docker.getNetwork(n.Id).remove()).catch(() => undefined);
    if (existing.length > 0) return;
    try {
      await call('createNetwork', () =>
        docker.createNetwork({ Name: name, Driver: 'bridge', CheckDuplicate: true, Labels: { ...labels, ...owned } }),
      );
    } catch (error) {
      if (statusOf(error) !== 409) throw error;
    }
  }

  /** One build of a context that holds its Dockerfile as LABELLED_DOCKERFILE. */
  async function sendBuild(context: unknown, tag: string, onLine: (line: string) => void, signal: AbortSignal) {
    // tar-fs's and tar-stream's packs are Readables; their types name a newer Pack, which dockerode's do not know.
    const stream = (await docker.buildImage(context as NodeJS.ReadableStream, {
      t: tag,
      dockerfile: LABELLED_DOCKERFILE,
      rm: true,
      forcerm: true,
      abortSignal: signal,
    })) as Readable;
    const cancel = () => stream.destroy(new Error('build cancelled'));
    if (signal.aborted) cancel();
    else signal.addEventListener('abort', cancel, { once: true });
    await followProgress(stream, onLine);
  }

  return {
    async ping() {
      await call('ping', () => docker.ping());
    },

    ensureNetwork(name, labels) {
      // Docker 20.10 creates a network twice when asked twice at once, CheckDuplicate or not: one at a time.
      const pending = creatingNetworks.get(name) ?? ensureOneNetwork(name, labels).finally(() => creatingNetworks.delete(name));
      creatingNetworks.set(name, pending);
      return pending;
    },

    async networkAddresses(name): Promise<NetworkAddresses[]> {
      const info = await call('inspectNetwork', () => docker.getNetwork(name).inspect());
      return (info.IPAM?.Config ?? []).flatMap((c) => (c.Subnet ? [{ subnet: c.Subnet, gateway: c.Gateway || null }] : []));
    },

    async build(spec, onLine, signal) {
      const labels: Record<string, string> = { ...spec.labels, ...owned };
      const { [LABEL.deployment]: _deployment, ...perService } = labels;
      // The service's labels as a step the builder caches; the deployment is in the tag (image-deployment.ts).
      const cached = labelFinalStage(spec.dockerfileText, perService);
      const context = pack(spec.contextDir, {
        ignore: (path) => leftOutOfContext(spec.contextDir, path),
        map: gitMode,
        finalize: false,
        finish: (tar) => {
          tar.entry({ name: LABELLED_DOCKERFILE }, cached ?? withLastLabel(spec.dockerfileText, labels));
          tar.finalize();
        },
      });
      await sendBuild(context, spec.tag, onLine, signal);
      if (cached === null) return;
      const built = await call('image inspect', () => docker.getImage(spec.tag).inspect());
      if (labelledAs(built, perService)) return;
      // The Dockerfile sets labels of ours itself: they are set again by a last step, over its own.
      const relabel = tarPack();
      relabel.entry({ name: LABELLED_DOCKERFILE }, withLastLabel(`FROM ${built.Id}\n`, labels));
      relabel.finalize();
      await sendBuild(relabel, spec.tag, onLine, signal);
    },

    async imageExists(reference) {
      try {
        await call('image inspect', () => docker.getImage(reference).inspect());
        return true;
      } catch (error) {
        if (statusOf(error) === 404) return false;
        throw error;
      }
    },

    async imageInfo(reference) {
      try {
        const info = await call('image inspect', () => docker.getImage(reference).inspect());
        return { id: info.Id, repoDigests: info.RepoDigests ?? [], project: info.Config?.Labels?.[LABEL.project] ?? null };
      } catch (error) {
        if (statusOf(error) === 404) return null;
        throw error;
      }
    },

    async pull(reference, onLine, signal) {
      // The engine's refusal quotes the registry: only a short line of it, without the registry's answer, goes on.
      try {
        const stream = (await docker.pull(reference, { abortSignal: signal })) as Readable;
        const cancel = () => stream.destroy(new Error('pull cancelled'));
        if (signal.aborted) cancel();
        else signal.addEventListener('abort', cancel, { once: true });
        await followProgress(stream, onLine);
      } catch (error) {
        throw new Error(registryFailureText(error instanceof Error ? error.message : String(error)));
      }
    },

    exportImage: async (reference) => (await call('image save', () => docker.getImage(reference).get())) as Readable,

    async importImage(archive, signal) {
      const stream = (await docker.loadImage(archive, { quiet: true, abortSignal: signal })) as Readable;
      await followProgress(stream, () => undefined);
    },

    async removeImage(reference) {
      try {
        await call('image remove', () => docker.getImage(reference).remove());
      } catch (error) {
        // 404: gone already; 409: a container still uses it and removes it later.
        if (statusOf(error) !== 404 && statusOf(error) !== 409) throw error;
      }
    },

    async listImages(labels): Promise<OwnedImage[]> {
      // The deployment is not an engine label (image-deployment.ts): it is matched here. Untagged images (a
      // failed build's last cached step) are the builder's cache, not an image of a deployment.
      const { [LABEL.deployment]: _deployment, ...engineLabels } = labels;
      const found = await call('listImages', () => docker.listImages({ filters: { ...ownedFilter(engineLabels), dangling: ['false'] } }));
      return found
        .map((i) => {
          const tags = (i.RepoTags ?? []).filter((t) => t !== '<none>:<none>');
          return { id: i.Id, tags, labels: listedLabels(tags, i.Labels ?? {}) };
        })
        .filter((i) => hasLabels(i.labels, labels));
    },

    async run(spec: ContainerSpec): Promise<RunningContainer> {
      const existing = await inspect(spec.name);
      if (existing) {
        if (!existing.State.Running) await call('start', () => docker.getContainer(existing.Id).start());
        const fresh = (await inspect(existing.Id)) ?? existing;
        return { id: existing.Id, name: spec.name, hostPort: await publishedPort(fresh, spec.internalPort) };
      }
      const port = spec.internalPort === null ? null : `${spec.internalPort}/tcp`;
      for (const v of spec.volumes ?? []) await ensureVolume(v.name, v.labels);
      // An explicit host port: with an empty one the engine picks a new port at every restart of the
      // container, and a crashed app restarted by the engine would fall off its route.
      for (let attempt = 1; ; attempt++) {
        const binding = port && spec.binding ? spec.binding : port && spec.publish ? { ip: '127.0.0.1', port: await freeLoopbackPort() } : null;
        const container = await call('create', () =>
          docker.createContainer({
            name: spec.name,
            Image: spec.image,
            Env: Object.entries(spec.env).map(([k, v]) => `${k}=${v}`),
            Labels: { ...spec.labels, ...owned },
            ...(spec.command ? { Cmd: spec.command } : {}),
            ...(port ? { ExposedPorts: { [port]: {} } } : {}),
            HostConfig: {
              ...privilegedHostConfig(spec.privileges ?? 'helper', spec.limits),
              NetworkMode: spec.network,
              RestartPolicy: { Name: 'no' },
              LogConfig: { Type: 'json-file', Config: { 'max-size': '10m', 'max-file': '3' } },
              ...(port && binding ? { PortBindings: { [port]: [{ HostIp: binding.ip, HostPort: String(binding.port) }] } } : {}),
              ...(spec.volumes?.length ? { Mounts: spec.volumes.map((v) => ({ Type: 'volume' as const, Source: v.name, Target: v.target })) } : {}),
            },
            NetworkingConfig: { EndpointsConfig: { [spec.network]: { Aliases: spec.aliases } } },
          }),
        );
        if (spec.files?.length) {
          const archive = await archiveOf(spec.files);
          await call('putArchive', () => container.putArchive(archive, { path: '/' }));
        }
        try {
          await call('start', () => container.start());
        } catch (error) {
          // Someone took the port between our check and the engine's bind: try another one (a fixed port cannot move).
          if (spec.binding || attempt >= 5 || !/already allocated|address already in use/i.test(String(error))) {
            await call('remove', () => container.remove({ force: true })).catch(() => undefined);
            throw error;
          }
          await call('remove', () => container.remove({ force: true }));
          continue;
        }
        return { id: container.id, name: spec.name, hostPort: binding?.port ?? null };
      }
    },

    async keepRunning(name) {
      await call('update', () => docker.getContainer(name).update({ RestartPolicy: { Name: 'unless-stopped', MaximumRetryCount: 0 } }));
    },

    async inspect(name, internalPort) {
      const info = await inspect(name);
      if (!info) return null;
      const running = info.State.Running && !info.State.Restarting;
      const address = Object.values(info.NetworkSettings.Networks ?? {}).find((n) => n.IPAddress)?.IPAddress ?? null;
      return {
        running,
        exitCode: running ? null : info.State.ExitCode,
        restarts: info.RestartCount,
        hostPort: await publishedPort(info, internalPort),
        oomKilled: running ? false : await killedForMemory(name, info),
        address,
        started: running || !info.State.StartedAt.startsWith('0001-'),
      };
    },

    async lastExit(name, sinceMs) {
      // With `until` the engine sends what it has and ends the stream; the call deadline bounds the read too.
      return call('events', async () => {
        const until = Math.ceil(Date.now() / 1000);
        const stream = await docker.getEvents({ since: Math.floor(sinceMs / 1000), until, filters: { type: ['container'], container: [name], event: ['die'] } });
        let text = '';
        for await (const chunk of stream) text += String(chunk);
        const codes = text
          .split('\n')
          .filter((l) => l.trim() !== '')
          .map((l) => Number((JSON.parse(l) as { Actor?: { Attributes?: { exitCode?: string } } }).Actor?.Attributes?.exitCode))
          .filter((code) => Number.isInteger(code));
        return codes.at(-1) ?? null;
      });
    },

    usage: (name, signal) => usageReadings(docker, name, signal),

    async remove(name, graceSeconds) {
      const container = docker.getContainer(name);
      try {
        await within(options.callTimeoutMs + graceSeconds * 1000, 'stop', () => container.stop({ t: graceSeconds }));
      } catch (error) {
        // 304: already stopped; 404: already gone.
        if (statusOf(error) !== 304 && statusOf(error) !== 404) throw error;
      }
      try {
        // With the anonymous volumes an image's VOLUME gave it (an import helper of a database image leaves
        // none behind); named volumes, which hold the databases' data, stay.
        await call('remove', () => container.remove({ force: true, v: true }));
      } catch (error) {
        // 409: a removal is already in progress.
        if (statusOf(error) !== 404 && statusOf(error) !== 409) throw error;
      }
    },

    async stop(name, graceSeconds) {
      try {
        await within(options.callTimeoutMs + graceSeconds * 1000, 'stop', () => docker.getContainer(name).stop({ t: graceSeconds }));
      } catch (error) {
        if (statusOf(error) !== 304 && statusOf(error) !== 404) throw error;
      }
    },

    async start(name) {
      try {
        await call('start', () => docker.getContainer(name).start());
      } catch (error) {
        // 304: already running.
        if (statusOf(error) !== 304) throw error;
      }
    },

    exec(name, spec, signal) {
      return execIn(docker, name, spec, signal);
    },
    openShell(name, spec) {
      return call('opening an exec', () => openShellIn(docker, name, spec));
    },

    async putFile(name, file, content) {
      const archive = tarPack();
      const entry = archive.entry({ name: file.path.replace(/^\/+/, ''), size: file.size, mode: file.mode, uid: file.uid, gid: file.gid });
      const written = pipeline(content, entry);
      written.then(() => archive.finalize(), (error: Error) => archive.destroy(error));
      // The upload streams the archive: a large file is never held whole.
      await Promise.all([written, docker.getContainer(name).putArchive(archive as unknown as NodeJS.ReadableStream, { path: '/' })]);
    },

    async removeVolumes(labels) {
      const { Volumes } = await call('listVolumes', () => docker.listVolumes({ filters: ownedFilter(labels) }));
      return removeEach((Volumes ?? []).map((v) => ({ name: v.Name, remove: () => call('removeVolume', () => docker.getVolume(v.Name).remove()) })));
    },

    async removeNetworks(labels) {
      const networks = await call('listNetworks', () => docker.listNetworks({ filters: ownedFilter(labels) }));
      return removeEach(networks.map((n) => ({ name: n.Name, remove: () => call('removeNetwork', () => docker.getNetwork(n.Id).remove()) })));
    },

    async list(labels): Promise<OwnedContainer[]> {
      const found = await call('listContainers', () =>
        docker.listContainers({ all: true, filters: ownedFilter(labels) }),
      );
      return found.map((c) => ({ id: c.Id, name: (c.Names[0] ?? '').replace(/^\//, ''), labels: c.Labels, running: c.State === 'running' }));
    },

    async *logs(name, { tail, since, follow, signal }): AsyncIterable<OutputLine> {
      const container = docker.getContainer(name);
      const query = { stdout: true, stderr: true, timestamps: true, ...(tail !== undefined ? { tail } : {}), ...(since ? { since } : {}) };
      const demux = new LogDemuxer(true);
      if (!follow) {
        const buffer = (await call('logs', () => container.logs({ ...query, follow: false }))) as unknown as Buffer;
        yield* demux.push(buffer);
        yield* demux.end();
        return;
      }
      const stream = (await call('logs', () => container.logs({ ...query, follow: true, ...(signal ? { abortSignal: signal } : {}) }))) as Readable;
      const stop = () => stream.destroy();
      signal?.addEventListener('abort', stop, { once: true });
      try {
        for await (const chunk of stream) yield* demux.push(chunk as Buffer);
      } catch (error) {
        if (!signal?.aborted) throw error;
      } finally {
        signal?.removeEventListener('abort', stop);
        stream.destroy();
      }
      yield* demux.end();
    },
  };
}
