import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type Docker from 'dockerode';
import type { ContainerUsage } from './container-runtime.js';

/**
 * One stats sample as `docker stats` shows it: CPU over the engine's last interval (precpu → cpu) as a
 * percentage of one CPU, memory without the page cache the kernel can drop (inactive files).
 */
export function usageOf(sample: Docker.ContainerStats): ContainerUsage | null {
  const { cpu_stats: cpu, precpu_stats: pre, memory_stats: memory } = sample;
  if (!cpu || !memory || memory.usage === undefined) return null;
  const cpuDelta = cpu.cpu_usage.total_usage - (pre?.cpu_usage?.total_usage ?? 0);
  const systemDelta = cpu.system_cpu_usage - (pre?.system_cpu_usage ?? 0);
  const cpus = cpu.online_cpus || cpu.cpu_usage.percpu_usage?.length || 1;
  const cpuPercent = pre?.system_cpu_usage && systemDelta > 0 && cpuDelta > 0 ? (cpuDelta / systemDelta) * cpus * 100 : 0;
  const stats = (memory.stats ?? {}) as Record<string, number | undefined>;
  // cgroup v1 names it total_inactive_file, v2 inactive_file.
  const inactive = stats.total_inactive_file ?? stats.inactive_file ?? 0;
  return {
    cpuPercent: Math.round(cpuPercent * 100) / 100,
    memoryBytes: inactive < memory.usage ? memory.usage - inactive : memory.usage,
    memoryLimitBytes: memory.limit,
    pids: (sample as { pids_stats?: { current?: number } }).pids_stats?.current ?? 0,
  };
}

/**
 * The engine's stats stream of a container as readings, one a second (see ContainerRuntime.usage). One stream
 * costs the engine and Slipway less than a one-shot request a second, and through a node's agent it is one TLS
 * connection instead of one per reading.
 */
export async function* usageReadings(docker: Docker, name: string, signal: AbortSignal): AsyncIterable<ContainerUsage | null> {
  let stream: Readable | null = null;
  // A signal that fired before the request went out (or while its answer was on the way) is heard by nobody
  // else: the stream would then run until its container goes, holding a server's stop.
  const stop = () => stream?.destroy();
  signal.addEventListener('abort', stop, { once: true });
  try {
    if (signal.aborted) return;
    // @types/dockerode leaves out abortSignal, which dockerode hands to the request.
    stream = (await docker.getContainer(name).stats({ stream: true, abortSignal: signal } as { stream: true })) as Readable;
    if (signal.aborted) return;
    const decoder = new StringDecoder('utf8');
    let pending = '';
    for await (const chunk of stream) {
      pending += decoder.write(chunk as Buffer);
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) if (line.trim() !== '') yield usageOf(JSON.parse(line) as Docker.ContainerStats);
    }
  } catch (error) {
    if (!signal.aborted) throw error;
  } finally {
    signal.removeEventListener('abort', stop);
    stream?.destroy();
  }
}
