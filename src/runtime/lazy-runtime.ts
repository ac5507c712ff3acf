import type { ContainerRuntime } from './container-runtime.js';

/**
 * Loads the engine client on first use: dockerode (with its gRPC and protobuf dependencies) costs
 * ≈ 10 MB of memory an installation that never deploys should not pay.
 */
export function lazyRuntime(load: () => Promise<ContainerRuntime>): ContainerRuntime {
  let loaded: Promise<ContainerRuntime> | null = null;
  const get = () => (loaded ??= load());
  return {
    ping: async () => (await get()).ping(),
    ensureNetwork: async (name, labels) => (await get()).ensureNetwork(name, labels),
    networkAddresses: async (name) => (await get()).networkAddresses(name),
    build: async (spec, onLine, signal) => (await get()).build(spec, onLine, signal),
    imageExists: async (reference) => (await get()).imageExists(reference),
    imageInfo: async (reference) => (await get()).imageInfo(reference),
    pull: async (reference, onLine, signal) => (await get()).pull(reference, onLine, signal),
    exportImage: async (reference) => (await get()).exportImage(reference),
    importImage: async (archive, signal) => (await get()).importImage(archive, signal),
    removeImage: async (reference) => (await get()).removeImage(reference),
    listImages: async (labels) => (await get()).listImages(labels),
    run: async (spec) => (await get()).run(spec),
    keepRunning: async (name) => (await get()).keepRunning(name),
    inspect: async (name, internalPort) => (await get()).inspect(name, internalPort),
    lastExit: async (name, sinceMs) => (await get()).lastExit(name, sinceMs),
    remove: async (name, graceSeconds) => (await get()).remove(name, graceSeconds),
    stop: async (name, graceSeconds) => (await get()).stop(name, graceSeconds),
    start: async (name) => (await get()).start(name),
    list: async (labels) => (await get()).list(labels),
    removeVolumes: async (labels) => (await get()).removeVolumes(labels),
    removeNetworks: async (labels) => (await get()).removeNetworks(labels),
    exec: async (name, spec, signal) => (await get()).exec(name, spec, signal),
    openShell: async (name, spec) => (await get()).openShell(name, spec),
    putFile: async (name, file, content) => (await get()).putFile(name, file, content),
    async *usage(name, signal) {
      yield* (await get()).usage(name, signal);
    },
    async *logs(name, options) {
      yield* (await get()).logs(name, options);
    },
  };
}
