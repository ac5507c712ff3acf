import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api, type GetAnswer } from '../api.js';
import { useLiveReload } from '../live-reload.js';
import { fieldsByPath, focusFirstInvalid, formErrors, NO_ERRORS } from '../form-errors.js';
import { canWrite } from '../session.js';
import { DangerButton } from './danger-button.js';
import { ErrorNote } from './error-note.js';
import { FieldError, invalidProps } from './field-error.js';
import { TableHead } from './table-head.js';
import { Badge } from './ui/badge.js';
import { TableScroll } from './ui/table-scroll.js';
import { confirmDialog } from './ui/dialog.js';

type ClusterInfo = NonNullable<GetAnswer<'/api/cluster'>['cluster']>;
type ClusterNode = GetAnswer<'/api/cluster/nodes'>['nodes'][number];
type Availability = ClusterNode['availability'];

const AVAILABILITIES: Availability[] = ['active', 'pause', 'drain'];
const gib = (bytes: number) => `${(bytes / 1024 ** 3).toFixed(1)} GiB`;
const fieldOf = fieldsByPath({ advertiseAddress: 'advertiseAddress' });

/**
 * More than one server (an all-project key's business): make the installation a Swarm manager, show the join
 * command once, and each node with its tasks; set a node's availability, remove one that left.
 */
export function Cluster() {
  const cluster = useSignal<ClusterInfo | null | undefined>(undefined);
  const nodes = useSignal<ClusterNode[]>([]);
  const joinCommand = useSignal<string | null>(null);
  const address = useSignal('');
  const errors = useSignal(NO_ERRORS);
  const error = (failed: unknown) => (errors.value = failed ? formErrors(failed, () => null) : NO_ERRORS);
  const load = async () => {
    const { data, error: failed } = await api.GET('/api/cluster');
    if (failed) return void error(failed);
    cluster.value = data.cluster;
    if (!data.cluster) return;
    const listed = await api.GET('/api/cluster/nodes');
    if (listed.error) return void error(listed.error);
    nodes.value = listed.data.nodes;
  };
  useEffect(() => {
    void load();
  }, []);
  // A node joining, leaving or changing state shows here.
  useLiveReload((change) => change.streamId.startsWith('cluster-'), load);

  const init = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const confirmed = await confirmDialog({
      title: 'Make this server a Docker Swarm manager?',
      body: 'Its Docker engine becomes a Swarm manager, and a registry (slipway-registry) starts on it.',
      confirmLabel: 'Make this a cluster',
    });
    if (!confirmed) return;
    const { error: failed } = await api.POST('/api/cluster', { body: address.value.trim() ? { advertiseAddress: address.value.trim() } : {} });
    errors.value = failed ? formErrors(failed, fieldOf) : NO_ERRORS;
    if (failed) focusFirstInvalid(form);
    await load();
  };
  const issueJoinCommand = async () => {
    const { data, error: failed } = await api.POST('/api/cluster/nodes', { body: { role: 'worker' } });
    error(failed);
    joinCommand.value = data?.joinCommand ?? null;
    await load();
  };
  const setAvailability = async (node: ClusterNode, availability: Availability) => {
    const { error: failed } = await api.PATCH('/api/cluster/nodes/{nodeId}', { params: { path: { nodeId: node.id } }, body: { availability } });
    error(failed);
    await load();
  };
  const remove = async (node: ClusterNode) => {
    const confirmed = await confirmDialog({
      title: `Remove the server ${node.hostname} from the cluster?`,
      body: 'The Swarm forgets it; to come back it must join again with a new join command.',
      confirmLabel: 'Remove server',
      danger: true,
    });
    if (!confirmed) return;
    const { error: failed } = await api.DELETE('/api/cluster/nodes/{nodeId}', { params: { path: { nodeId: node.id } } });
    error(failed);
    await load();
  };

  if (cluster.value === undefined) return <ErrorNote message={errors.value.general} />;
  return (
    <section aria-labelledby="cluster">
      <h2 id="cluster">Cluster</h2>
      <ErrorNote message={errors.value.general} />
      {cluster.value === null ? (
        <>
          <p>A single server: services run as plain containers. Make it a Docker Swarm manager to add servers.</p>
          {canWrite.value && (
            <form class="filters cluster-init" onSubmit={init}>
              <label for="cluster-address">Address other servers reach this one at (optional)</label>
              <input id="cluster-address" value={address.value} onInput={(e) => (address.value = e.currentTarget.value)} {...invalidProps('cluster-address', errors.value.fields.advertiseAddress)} />
              <FieldError id="cluster-address" message={errors.value.fields.advertiseAddress} />
              <button type="submit">Make this a cluster</button>
            </form>
          )}
        </>
      ) : (
        <>
          <p>
            Manager at <code>{cluster.value.advertiseAddress}</code>, registry <code>{cluster.value.registry}</code>.
          </p>
          {joinCommand.value && (
            <p class="secret" role="status">
              Run this as root on the new server, shown this once (each new command makes the last one useless): <code>{joinCommand.value}</code>{' '}
              <button type="button" onClick={() => (joinCommand.value = null)}>
                I have copied it
              </button>
            </p>
          )}
          {canWrite.value && (
            <button type="button" onClick={() => void issueJoinCommand()}>
              Add a server
            </button>
          )}
          <TableScroll label="Nodes">
            <table>
              <TableHead columns={['Node', 'Role', 'State', 'Availability', 'Address', 'CPUs, memory', 'Labels', 'Tasks', 'Databases']} actions={canWrite.value} />
              <tbody>
                {nodes.value.map((n) => (
                  <tr key={n.id}>
                    <td>{n.hostname}</td>
                    <td>{n.role + (n.leader ? ' (leader)' : '')}</td>
                    <td>
                      <Badge status={n.state} />
                      {n.noNewPrivileges === false && <small> (its Docker does not set no-new-privileges)</small>}
                    </td>
                    <td>
                      <Badge status={n.availability} />
                    </td>
                    <td>{n.address}</td>
                    <td>{`${n.cpus} CPUs, ${gib(n.memoryBytes)}`}</td>
                    <td>{Object.entries(n.labels).map(([k, v]) => `${k}=${v}`).join(', ')}</td>
                    <td>{n.tasks.filter((t) => t.state === 'running').length}</td>
                    <td>{n.databases.map((d) => d.name).join(', ')}</td>
                    {canWrite.value && (
                      <td>
                        {n.role === 'worker' &&
                          AVAILABILITIES.filter((a) => a !== n.availability).map((a) => (
                            <button key={a} type="button" onClick={() => void setAvailability(n, a)}>
                              {a === 'active' ? 'Activate' : a === 'pause' ? 'Pause' : 'Drain'} <span class="visually-hidden">{n.hostname}</span>
                            </button>
                          ))}
                        {n.role === 'worker' && n.availability === 'drain' && n.state !== 'ready' && (
                          <DangerButton label="Remove" what={n.hostname} onClick={() => void remove(n)} />
                        )}
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        </>
      )}
    </section>
  );
}
