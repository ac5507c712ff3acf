import { useSignal } from '@preact/signals';
import { LiveLog } from '../live-log.js';

/** What the running service writes, as it writes it, filtered by a word. */
export function LogsTab({ serviceId, lastDeployedAt }: { serviceId: string; lastDeployedAt: string | null }) {
  const filter = useSignal('');
  return (
    <>
      <label for="runtime-filter">Filter</label>
      <input id="runtime-filter" type="search" value={filter.value} onInput={(e) => (filter.value = e.currentTarget.value)} />
      {/* A new release has new output: its stream starts again. */}
      <LiveLog key={lastDeployedAt ?? 'never'} url={`/api/services/${serviceId}/runtime-logs/stream`} label="Runtime log" filter={filter.value} />
    </>
  );
}
