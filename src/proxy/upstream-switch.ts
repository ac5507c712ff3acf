import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface UpstreamTarget {
  hostPort: number;
  /** Loopback port the service's current container is published on. */
  upstreamPort: number;
}

/**
 * A stable address per service that is switched to the current container outside Caddy, so a deployment
 * never reloads Caddy. (Debian's Caddy 2.6 swaps SO_REUSEPORT sockets on every reload, and connections
 * queued on the old socket at that instant are reset.)
 */
export interface UpstreamSwitch {
  /** Where Caddy dials a service: the same for as long as the service exists. */
  addressOf(hostPort: number): { host: string; port: number };
  /** Points every service at its container, all in one atomic commit. */
  apply(targets: readonly UpstreamTarget[]): Promise<void>;
  /** Puts the chain and the jump to it back, should a firewall tool have flushed them. */
  repair(): Promise<void>;
  /** Removes the rules (tests; an uninstall). */
  remove(): Promise<void>;
}

const iptables = (...args: string[]) => run('iptables', ['-w', '5', ...args], { timeout: 10_000 });

/**
 * Kernel NAT, as kube-proxy does it: Caddy dials `<own loopback address>:<hostPort>`, and one DNAT rule per
 * service in this installation's chain leads that to `127.0.0.1:<container port>`. Replacing the rules
 * moves new connections at once; connections already open keep their target. Null where iptables cannot
 * be used (not root, no iptables): Slipway then reloads Caddy on each switch instead.
 */
export async function createIptablesSwitch(instance: string): Promise<UpstreamSwitch | null> {
  const digest = createHash('sha256').update(instance).digest();
  // An address of 127/8 of its own, never 127.0.0.1, so two installations on one host never collide.
  const address = `127.${(digest[0]! % 254) + 1}.${digest[1]!}.${(digest[2]! % 254) + 1}`;
  const chain = `SLIPWAY-${instance.replace(/-/g, '').slice(0, 12).toUpperCase()}`;
  const jump = ['OUTPUT', '-d', `${address}/32`, '-p', 'tcp', '-j', chain];
  // Also after a firewall tool flushed the nat table: the chain and the jump to it come back.
  const ensureChain = async () => {
    await iptables('-t', 'nat', '-N', chain).catch(async () => iptables('-t', 'nat', '-L', chain, '-n'));
    await iptables('-t', 'nat', '-C', ...jump).catch(() => iptables('-t', 'nat', '-I', ...jump));
  };
  try {
    await ensureChain();
  } catch {
    return null;
  }
  const restore = (rules: string[]) =>
    new Promise<void>((resolve, reject) => {
      const child = execFile('iptables-restore', ['-w', '5', '--noflush'], { timeout: 10_000 }, (error) => (error ? reject(error) : resolve()));
      child.stdin!.end(['*nat', `:${chain} - [0:0]`, ...rules, 'COMMIT', ''].join('\n'));
    });
  return {
    addressOf: (hostPort) => ({ host: address, port: hostPort }),
    repair: ensureChain,
    async apply(targets) {
      await restore([
        ...targets.map((t) => `-A ${chain} -d ${address}/32 -p tcp -m tcp --dport ${t.hostPort} -j DNAT --to-destination 127.0.0.1:${t.upstreamPort}`),
        // Anything else on this address is refused (port 1 has no listener), never looped back into Caddy.
        `-A ${chain} -d ${address}/32 -p tcp -j DNAT --to-destination 127.0.0.1:1`,
      ]);
    },
    async remove() {
      await iptables('-t', 'nat', '-D', ...jump).catch(() => undefined);
      await iptables('-t', 'nat', '-F', chain).catch(() => undefined);
      await iptables('-t', 'nat', '-X', chain).catch(() => undefined);
    },
  };
}
