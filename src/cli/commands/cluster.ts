import { Option, type Command } from 'commander';
import { json, type CliContext } from './options.js';

const clusterApi = () => import('../api/cluster.js');

/** cluster: init, join-command, nodes, node, remove-node. */
export function clusterCommands(program: Command, _cli: CliContext): void {
  const cluster = program.command('cluster').description('more than one server: the installation as a Docker Swarm manager');
  cluster
    .command('init')
    .description('make this installation a Swarm manager, with a private registry every node pulls releases from')
    .option('--advertise-address <address>', 'where the other servers reach this one (needed when it has several addresses)')
    .addOption(json())
    .action(async (o) => (await clusterApi()).initCluster(o));
  cluster
    .command('join-command')
    .description('the command that joins a new server (shown once)')
    .option('--manager', 'join it as a manager rather than a worker')
    .addOption(json())
    .action(async (o) => (await clusterApi()).joinCommand(o));
  cluster.command('nodes').description('the servers, with their state and tasks').addOption(json()).action(async (o) => (await clusterApi()).listNodes(o));
  cluster
    .command('node <id>')
    .description('pause or drain a server (its tasks move), make it active again, or set its labels')
    .addOption(new Option('--availability <availability>', 'active, pause or drain').choices(['active', 'pause', 'drain']))
    .option('--label <name=value...>', 'the node’s labels (they replace its labels); services choose nodes by them (nodeLabels)')
    .option('--clear-labels', 'remove every label')
    .addOption(json())
    .action(async (id: string, o) => (await clusterApi()).changeNode(id, o));
  cluster.command('remove-node <id>').description('remove a drained server that has left the Swarm').addOption(json()).action(async (id: string, o) => (await clusterApi()).removeNode(id, o));
}
