import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const CLAIMS = join(tmpdir(), 'slipway-test-ports');

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * Claims `name` among the test processes running on this machine: true when this process now holds it. A claim
 * whose holder died is taken over; the claim is dropped by `release` or when the process exits.
 */
function claim(name: string): (() => void) | null {
  mkdirSync(CLAIMS, { recursive: true });
  const file = join(CLAIMS, name);
  try {
    writeFileSync(file, String(process.pid), { flag: 'wx' });
  } catch {
    const holder = Number(readFileSync(file, 'utf8'));
    if (holder === process.pid || alive(holder)) return null;
    writeFileSync(file, String(process.pid));
  }
  const release = () => {
    process.off('exit', release);
    rmSync(file, { force: true });
  };
  process.once('exit', release);
  return release;
}

/**
 * A block of 100 host ports no other test server holds (test files run in parallel, each with its own
 * Slipway and Caddy: two on one block would route one's port to the other's service, Caddy's listeners
 * sharing the port). Below the kernel's ephemeral range (32768-60999), where an outgoing connection could
 * hold a service's port.
 */
export function claimHostPorts(): { range: string; release: () => void } {
  const start = Math.floor(Math.random() * 127);
  for (let i = 0; i < 127; i++) {
    const low = 20_000 + ((start + i) % 127) * 100;
    const release = claim(`block-${low}`);
    if (release) return { range: `${low}-${low + 99}`, release };
  }
  throw new Error('every block of host ports is held by a running test');
}

/** Ports a test may bind later (a Caddy's admin or proxy port): above the kernel's ephemeral range, 61000-65499. */
const SINGLE_LOW = 61_000;
const SINGLE_COUNT = 4_500;

/**
 * A port no other test holds, outside the range the kernel hands out to other sockets: a port asked of the kernel
 * and closed again was given to another file's Caddy before this one bound it, and Caddy's listeners share a port
 * (SO_REUSEPORT), so the proxy under test answered with the other Caddy's admin API.
 */
export function claimPort(isFree: (port: number) => Promise<boolean>): Promise<number> {
  const start = Math.floor(Math.random() * SINGLE_COUNT);
  const next = async (i: number): Promise<number> => {
    if (i === SINGLE_COUNT) throw new Error('every test port is held by a running test');
    const port = SINGLE_LOW + ((start + i) % SINGLE_COUNT);
    const release = claim(`port-${port}`);
    if (!release) return next(i + 1);
    if (await isFree(port)) return port;
    release();
    return next(i + 1);
  };
  return next(0);
}
