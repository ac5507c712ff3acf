import { networkInterfaces } from 'node:os';

/** What of this host an outbound connection must not reach unless allowed. */
export interface HostNetworks {
  /** Every address of every interface of this host. */
  addresses: string[];
  /** The subnets of Docker's bridges: other projects' containers answer there. */
  dockerSubnets: [network: string, prefix: number][];
}

// docker0, the bridges of user-defined networks (br-<id>), and swarm's gateway bridge.
const DOCKER_BRIDGE = /^(docker\d*|br-[0-9a-f]+|docker_gwbridge)$/;

/** This host's interfaces as they are now (a Docker network may come or go at any time). */
export function currentHostNetworks(): HostNetworks {
  const addresses: string[] = [];
  const dockerSubnets: HostNetworks['dockerSubnets'] = [];
  for (const [name, list] of Object.entries(networkInterfaces())) {
    for (const entry of list ?? []) {
      addresses.push(entry.address.replace(/%.*$/, ''));
      if (DOCKER_BRIDGE.test(name) && entry.cidr) dockerSubnets.push([entry.address.replace(/%.*$/, ''), Number(entry.cidr.split('/')[1])]);
    }
  }
  return { addresses, dockerSubnets };
}
