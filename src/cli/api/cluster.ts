import { answer, apiClient } from './client.js';
import { table } from './output.js';
import { print, type Output } from './resources.js';

const gib = (bytes: number) => `${(bytes / 1024 ** 3).toFixed(1)} GiB`;

export async function initCluster(o: Output & { advertiseAddress?: string }) {
  const { api } = apiClient();
  const data = await answer(api.POST('/api/cluster', { body: o.advertiseAddress ? { advertiseAddress: o.advertiseAddress } : {} }));
  print(o.json, data, () =>
    [
      `this installation is now a Swarm manager at ${data.cluster.advertiseAddress} (Swarm ${data.cluster.swarmId})`,
      `its registry: ${data.cluster.registry}`,
      'add a server: slipway cluster join-command',
    ].join('\n'),
  );
}

export async function joinCommand(o: Output & { manager?: boolean }) {
  const { api } = apiClient();
  const data = await answer(api.POST('/api/cluster/nodes', { body: { role: o.manager ? 'manager' : 'worker' } }));
  print(o.json, data, () =>
    [
      `Run this as root on the new server (shown once: asking again makes this one stop working).`,
      `Between the servers, TCP 2377 and 7946, UDP 7946 and 4789 must pass, and the new server must reach ${data.registry}.`,
      '',
      data.joinCommand,
    ].join('\n'),
  );
}

export async function listNodes(o: Output) {
  const { api } = apiClient();
  const data = await answer(api.GET('/api/cluster/nodes'));
  print(o.json, data, () =>
    table(
      ['ID', 'HOSTNAME', 'ROLE', 'STATE', 'AVAILABILITY', 'ADDRESS', 'CPUS', 'MEMORY', 'TASKS', 'DATABASES', 'LABELS'],
      data.nodes.map((n) => [
        n.id,
        n.hostname,
        n.leader ? `${n.role} (leader)` : n.role,
        n.state,
        n.availability,
        n.address,
        String(n.cpus),
        gib(n.memoryBytes),
        String(n.tasks.length),
        n.databases.map((d) => d.name).join(',') || '-',
        Object.entries(n.labels)
          .map(([k, v]) => `${k}=${v}`)
          .join(','),
      ]),
    ),
  );
}

/** `--availability drain`, `--label zone=b` (the labels given replace the node's; `--clear-labels` removes them all). */
export async function changeNode(nodeId: string, o: Output & { availability?: 'active' | 'pause' | 'drain'; label?: string[]; clearLabels?: boolean }) {
  const { api } = apiClient();
  const labels = o.clearLabels ? {} : o.label ? Object.fromEntries(o.label.map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)])) : undefined;
  const body = { ...(o.availability ? { availability: o.availability } : {}), ...(labels ? { labels } : {}) };
  const data = await answer(api.PATCH('/api/cluster/nodes/{nodeId}', { params: { path: { nodeId } }, body }));
  print(o.json, data, () => `${data.node.hostname}: ${data.node.availability}${Object.keys(data.node.labels).length ? `, labels ${JSON.stringify(data.node.labels)}` : ''}`);
}

export async function removeNode(nodeId: string, o: Output) {
  const { api } = apiClient();
  const data = await answer(api.DELETE('/api/cluster/nodes/{nodeId}', { params: { path: { nodeId } } }));
  print(o.json, data, () => `removed node ${nodeId}`);
}
