import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const RANGES = join(tmpdir(), 'slipway-test-host-ports');

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * A block of 100 host ports no other test server holds (test files run in parallel, each with its own
 * Slipway and Caddy: two on one block would route one's port to the other's service, Caddy's listeners
 * sharing the port). Below the kernel's ephemeral range (32768-60999), where an outgoing connection could
 * hold a service's port. Released by `release()` or when the process exits; a block whose holder died is
 * taken over.
 */
export function claimHostPorts(): { range: string; release: () => void } {
  mkdirSync(RANGES, { recursive: true });
  const start = Math.floor(Math.random() * 127);
  for (let i = 0; i < 127; i++) {
    const low = 20_000 + ((start + i) % 127) * 100;
    const file = join(RANGES, String(low));
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx' });
    } catch {
      const holder = Number(readFileSync(file, 'utf8'));
      if (holder === process.pid || alive(holder)) continue;
      writeFileSync(file, String(process.pid));
    }
    const release = () => {
      process.off('exit', release);
      rmSync(file, { force: true });
    };
    process.once('exit', release);
    return { range: `${low}-${low + 99}`, release };
  }
  throw new Error('every block of host ports is held by a running test');
}
