import Docker from 'dockerode';
import { LABEL, type ContainerRuntime, type ContainerSpec, type OwnedContainer, type RunningContainer } from './container-runtime.js';

const statusOf = (error: unknown) => (error as { statusCode?: number }).statusCode;

const labelFilter = (labels: Record<string, string>) => Object.entries(labels).map(([k, v]) => `${k}=${v}`);

/** Docker through dockerode; everything it creates carries `slipway.managed=true`. */
export function createDockerRuntime(options: Docker.DockerOptions = { socketPath: '/var/run/docker.sock' }): ContainerRuntime {
  const docker = new Docker(options);

  async function inspectPublished(id: string, internalPort: number | null): Promise<number | null> {
    if (internalPort === null) return null;
    const info = await docker.getContainer(id).inspect();
    const binding = info.NetworkSettings.Ports?.[`${internalPort}/tcp`]?.[0];
    return binding ? Number(binding.HostPort) : null;
  }

  return {
    async ping() {
      await docker.ping();
    },

    async ensureNetwork(name, labels) {
      const existing = await docker.listNetworks({ filters: { name: [name] } });
      if (existing.some((n) => n.Name === name)) return;
      try {
        await docker.createNetwork({ Name: name, Driver: 'bridge', CheckDuplicate: true, Labels: { ...labels, [LABEL.managed]: 'true' } });
      } catch (error) {
        if (statusOf(error) !== 409) throw error;
      }
    },

    async run(spec: ContainerSpec): Promise<RunningContainer> {
      const existing = await docker.listContainers({ all: true, filters: { name: [`^/${spec.name}$`] } });
      if (existing[0]) {
        const container = docker.getContainer(existing[0].Id);
        if (existing[0].State !== 'running') await container.start();
        return { id: existing[0].Id, name: spec.name, hostPort: await inspectPublished(existing[0].Id, spec.internalPort) };
      }
      const port = spec.internalPort === null ? null : `${spec.internalPort}/tcp`;
      const container = await docker.createContainer({
        name: spec.name,
        Image: spec.image,
        Env: Object.entries(spec.env).map(([k, v]) => `${k}=${v}`),
        Labels: { ...spec.labels, [LABEL.managed]: 'true' },
        ...(spec.command ? { Cmd: spec.command } : {}),
        ...(port ? { ExposedPorts: { [port]: {} } } : {}),
        HostConfig: {
          NetworkMode: spec.network,
          RestartPolicy: { Name: 'unless-stopped' },
          ...(port && spec.publish ? { PortBindings: { [port]: [{ HostIp: '127.0.0.1', HostPort: '' }] } } : {}),
        },
        NetworkingConfig: { EndpointsConfig: { [spec.network]: { Aliases: spec.aliases } } },
      });
      await container.start();
      return { id: container.id, name: spec.name, hostPort: await inspectPublished(container.id, spec.internalPort) };
    },

    async remove(name, graceSeconds) {
      const container = docker.getContainer(name);
      try {
        await container.stop({ t: graceSeconds });
      } catch (error) {
        // 304: already stopped; 404: already gone.
        if (statusOf(error) !== 304 && statusOf(error) !== 404) throw error;
      }
      try {
        await container.remove({ force: true });
      } catch (error) {
        if (statusOf(error) !== 404) throw error;
      }
    },

    async list(labels): Promise<OwnedContainer[]> {
      const found = await docker.listContainers({ all: true, filters: { label: labelFilter({ ...labels, [LABEL.managed]: 'true' }) } });
      return found.map((c) => ({ id: c.Id, name: (c.Names[0] ?? '').replace(/^\//, ''), labels: c.Labels, running: c.State === 'running' }));
    },
  };
}
