import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
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
  /** Removes the chain and every jump to it (at stop, once Caddy no longer dials through it). */
  remove(): Promise<void>;
}

const iptables = (...args: string[]) => run('iptables', ['-w', '5', ...args], { timeout: 10_000 });

const hex = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 8).toUpperCase();

/**
 * The chains of one data directory are `SLIPWAY-<its real path's hash>-<instance>`: a start can tell the
 * chains earlier instances of the same directory left (a crash, a directory made anew) from those of other
 * installations on the host, which it never touches.
 */
export const chainPrefixOf = (dataDir: string) => `SLIPWAY-${hex(realpathSync(dataDir))}-`;

/** Deletes a nat chain and every rule that jumps to it, wherever that rule is (OUTPUT, PREROUTING, …). */
async function removeChain(chain: string) {
  const { stdout } = await iptables('-t', 'nat', '-S');
  for (const rule of stdout.split('\n')) {
    const words = rule.trim().split(/\s+/);
    const target = words.indexOf('-j');
    if (words[0] === '-A' && target > 0 && words[target + 1] === chain) await iptables('-t', 'nat', '-D', ...words.slice(1)).catch(() => undefined);
  }
  await iptables('-t', 'nat', '-F', chain).catch(() => undefined);
  await iptables('-t', 'nat', '-X', chain).catch(() => undefined);
}

/** Chains that earlier instances of this data directory left, including the name versions before 2026-11 gave it. */
async function earlierChains(prefix: string, own: string, legacy: string): Promise<string[]> {
  const { stdout } = await iptables('-t', 'nat', '-S');
  return stdout
    .split('\n')
    .map((line) => /^-N (\S+)$/.exec(line.trim())?.[1])
    .filter((name): name is string => name !== undefined && name !== own && (name.startsWith(prefix) || name === legacy));
}

/**
 * Kernel NAT, as kube-proxy does it: Caddy dials `<own loopback address>:<hostPort>`, and one DNAT rule per
 * service in this installation's chain leads that to `127.0.0.1:<container port>`. Replacing the rules
 * moves new connections at once; connections already open keep their target. Null where iptables cannot
 * be used (not root, no iptables): Slipway then reloads Caddy on each switch instead.
 */
export async function createIptablesSwitch(instance: string, dataDir: string): Promise<UpstreamSwitch | null> {
  const digest = createHash('sha256').update(instance).digest();
  // An address of 127/8 of its own, never 127.0.0.1, so two installations on one host never collide.
  const address = `127.${(digest[0]! % 254) + 1}.${digest[1]!}.${(digest[2]! % 254) + 1}`;
  const prefix = chainPrefixOf(dataDir);
  const compact = instance.replace(/-/g, '').toUpperCase();
  const chain = `${prefix}${compact.slice(0, 8)}`;
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
  // Removed once this chain carries the routes: a Caddy still dialling an earlier chain's address is moved meanwhile.
  let earlierRemoved = false;
  return {
    addressOf: (hostPort) => ({ host: address, port: hostPort }),
    repair: ensureChain,
    async apply(targets) {
      await restore([
        ...targets.map((t) => `-A ${chain} -d ${address}/32 -p tcp -m tcp --dport ${t.hostPort} -j DNAT --to-destination 127.0.0.1:${t.upstreamPort}`),
        // Anything else on this address is refused (port 1 has no listener), never looped back into Caddy.
        `-A ${chain} -d ${address}/32 -p tcp -j DNAT --to-destination 127.0.0.1:1`,
      ]);
      if (earlierRemoved) return;
      earlierRemoved = true;
      for (const earlier of await earlierChains(prefix, chain, `SLIPWAY-${compact.slice(0, 12)}`)) await removeChain(earlier);
    },
    remove: () => removeChain(chain),
  };
}
