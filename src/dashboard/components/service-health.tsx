import type { GetAnswer } from '../api.js';

type Overview = GetAnswer<'/api/services/{serviceId}/overview'>;
type Health = Overview['service']['health'];

const HEALTH_TEXT: Record<Health['status'], string> = { healthy: 'healthy', unhealthy: 'unhealthy', starting: 'starting', none: 'no check' };

/** A service's health as one short phrase, with the probe's words when it failed. */
export function HealthBadge({ health }: { health: Health }) {
  return (
    <span class={`health health-${health.status}`} title={health.detail ?? undefined}>
      {HEALTH_TEXT[health.status]}
      {health.status === 'unhealthy' && health.detail ? `: ${health.detail}` : ''}
    </span>
  );
}

const MiB = 1024 * 1024;
const megabytes = (bytes: number) => (bytes >= 10 * 1024 * MiB ? `${(bytes / 1024 / MiB).toFixed(1)} GiB` : `${Math.round(bytes / MiB)} MiB`);

/**
 * CPU and memory the running container uses, each against its limit; a meter that turns red near the limit.
 * No reading yet (`usage: null`: the sampler has not answered) is not the same as nothing running.
 */
export function Usage({ usage, resources, running }: { usage: Overview['usage']; resources: Overview['resources']; running: boolean }) {
  if (!running) return <dd>not running</dd>;
  if (!usage) return <dd>not known yet</dd>;
  const cpuLimit = resources.cpus ? Number(resources.cpus) * 100 : null;
  return (
    <dd class="usage">
      <span>
        CPU {usage.cpuPercent.toFixed(1)}% {cpuLimit ? `of ${cpuLimit}%` : '(no limit)'}
        {cpuLimit && <meter min={0} max={cpuLimit} high={cpuLimit * 0.8} value={usage.cpuPercent} aria-label="CPU against its limit" />}
      </span>
      <span>
        memory {megabytes(usage.memoryBytes)} of {megabytes(usage.memoryLimitBytes)}
        {resources.memory ? '' : ' (no limit: the host’s)'}
        <meter min={0} max={usage.memoryLimitBytes} high={usage.memoryLimitBytes * 0.8} value={usage.memoryBytes} aria-label="Memory against its limit" />
      </span>
      <span>{usage.pids} process(es){resources.pids ? ` of ${resources.pids}` : ''}</span>
    </dd>
  );
}
