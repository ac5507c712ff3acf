import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api, messageOf, type GetAnswer } from '../api.js';
import { canWrite } from '../session.js';
import { DangerButton } from './danger-button.js';
import { ErrorNote } from './error-note.js';
import { TableHead } from './table-head.js';

type ClusterInfo = NonNullable<GetAnswer<'/api/cluster'>['cluster']>;
type ClusterNode = GetAnswer<'/api/cluster/nodes'>['nodes'][number];
type Availability = ClusterNode['availability'];

const AVAILABILITIES: Availability[] = ['active', 'pause', 'drain'];
const gib = (bytes: number) => `${(bytes / 1024 ** 3).toFixed(1)} GiB`;

/**
 * More than one server (an all-project key's business): make the installation a Swarm manager, show the join
 * command once, and each node with its tasks; set a node's availability, remove one that left.
 */
export function Cluster() {
  const cluster = useSignal<ClusterInfo | null | undefined>(undefined);
  const nodes = useSignal<ClusterNode[]>([]);
  const joinCommand = useSignal<string | null>(null);
  const address = useSignal('');
  const error = useSignal<string | null>(null);
  const load = async () => {
    const { data, error: failed } = await api.GET('/api/cluster');
    if (failed) return void (error.value = messageOf(failed));
    cluster.value = data.cluster;
    if (!data.cluster) return;
    const listed = await api.GET('/api/cluster/nodes');
    if (listed.error) return void (error.value = messageOf(listed.error));
    nodes.value = listed.data.nodes;
  };
  useEffect(() => {
    void load();
  }, []);

  const init = async (event: Event) => {
    event.preventDefault();
    if (!window.confirm('Make this server a Docker Swarm manager? Its Docker host joins Swarm mode, and a registry starts on it.')) return;
    const { error: failed } = await api.POST('/api/cluster', { body: address.value.trim() ? { advertiseAddress: address.value.trim() } : {} });
    error.value = failed ? messageOf(failed) : null;
    await load();
  };
  const issueJoinCommand = async () => {
    const { data, error: failed } = await api.POST('/api/cluster/nodes', { body: { role: 'worker' } });
    error.value = failed ? messageOf(failed) : null;
    joinCommand.value = data?.joinCommand ?? null;
    await load();
  };
  const setAvailability = async (node: ClusterNode, availability: Availability) => {
    const { error: failed } = await api.PATCH('/api/cluster/nodes/{nodeId}', { params: { path: { nodeId: node.id } }, body: { availability } });
    error.value = failed ? messageOf(failed) : null;
    await load();
  };
  const remove = async (node: ClusterNode) => {
    if (!window.confirm(`Remove ${node.hostname} from the cluster?`)) return;
    const { error: failed } = await api.DELETE('/api/cluster/nodes/{nodeId}', { params: { path: { nodeId: node.id } } });
    error.value = failed ? messageOf(failed) : null;
    await load();
  };

  if (cluster.value === undefined) return <ErrorNote message={error.value} />;
  return (
    <section aria-labelledby="cluster">
      <h2 id="cluster">Cluster</h2>
      <ErrorNote message={error.value} />
      {cluster.value === null ? (
        <>
          <p>A single server: services run as plain containers. Make it a Docker Swarm manager to add servers.</p>
          {canWrite.value && (
            <form class="filters cluster-init" onSubmit={init}>
              <label for="cluster-address">Address other servers reach this one at (optional)</label>
              <input id="cluster-address" value={address.value} onInput={(e) => (address.value = e.currentTarget.value)} />
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
          <table>
            <TableHead columns={['Node', 'Role', 'State', 'Availability', 'Address', 'CPUs, memory', 'Labels', 'Tasks', 'Databases']} actions={canWrite.value} />
            <tbody>
              {nodes.value.map((n) => (
                <tr key={n.id}>
                  <td>{n.hostname}</td>
                  <td>{n.role + (n.leader ? ' (leader)' : '')}</td>
                  <td>
                    {n.state}
                    {n.noNewPrivileges === false && <small> (its Docker does not set no-new-privileges)</small>}
                  </td>
                  <td>{n.availability}</td>
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
        </>
      )}
    </section>
  );
}
