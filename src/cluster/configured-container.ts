import type Docker from 'dockerode';
import { pack as tarPack } from 'tar-stream';

/** A file (or, without content, a directory) put into a container before it starts. */
export interface ContainerFile {
  path: string;
  mode: number;
  content?: string;
}

interface ProgressMessage {
  status?: string;
  error?: string;
  errorDetail?: { message?: string };
  aux?: { Digest?: string };
}

const statusOf = (error: unknown) => (error as { statusCode?: number }).statusCode;

/** The engine reports a failed pull or push inside the stream, with HTTP 200: such a message becomes the rejection. */
export function followProgress(docker: Docker, stream: NodeJS.ReadableStream): Promise<ProgressMessage[]> {
  return new Promise((resolve, reject) => {
    docker.modem.followProgress(stream, (error, messages: ProgressMessage[]) => {
      const failed = messages.find((m) => m.error !== undefined || m.errorDetail !== undefined);
      if (error) reject(error);
      else if (failed) reject(new Error(failed.errorDetail?.message ?? failed.error));
      else resolve(messages);
    });
  });
}

/** The image's id on this engine, pulling it first when the engine does not have it. */
export async function localImageId(docker: Docker, image: string): Promise<string> {
  try {
    return (await docker.getImage(image).inspect()).Id;
  } catch (error) {
    if (statusOf(error) !== 404) throw error;
  }
  await followProgress(docker, (await docker.pull(image)) as NodeJS.ReadableStream);
  return (await docker.getImage(image).inspect()).Id;
}

/**
 * One of the installation's own long-lived containers (the registry, the router), configured by files put in
 * before it starts. The existing one is kept (and started if stopped) while its `stampLabel` equals `stamp`
 * and `keep` agrees; otherwise it is replaced by what `build` gives (its volumes stay).
 */
export async function ensureConfiguredContainer(
  docker: Docker,
  opts: {
    name: string;
    stampLabel: string;
    stamp: string;
    keep?: (labels: Record<string, string>) => boolean;
    build: () => Promise<{ options: Docker.ContainerCreateOptions; files: ContainerFile[] }>;
  },
): Promise<void> {
  const existing = await docker
    .getContainer(opts.name)
    .inspect()
    .catch((error: unknown) => {
      if (statusOf(error) === 404) return null;
      throw error;
    });
  if (existing && existing.Config.Labels[opts.stampLabel] === opts.stamp && (opts.keep?.(existing.Config.Labels) ?? true)) {
    if (!existing.State.Running) await docker.getContainer(existing.Id).start();
    return;
  }
  if (existing) await docker.getContainer(existing.Id).remove({ force: true });
  const { options, files } = await opts.build();
  const container = await docker.createContainer({ ...options, name: opts.name, Labels: { ...options.Labels, [opts.stampLabel]: opts.stamp } });
  const tar = tarPack();
  for (const file of files) {
    const name = file.path.replace(/^\//, '');
    if (file.content === undefined) tar.entry({ name, type: 'directory', mode: file.mode });
    else tar.entry({ name, mode: file.mode }, file.content);
  }
  tar.finalize();
  // tar-stream's Pack is a Readable; its type names a newer stream API than dockerode's.
  await container.putArchive(tar as unknown as NodeJS.ReadableStream, { path: '/' });
  await container.start();
}
