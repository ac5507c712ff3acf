import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** What only an installation's data directory holds: its database, its master key, a running server's socket. */
const MARKERS = ['pgdata', 'master.key', 'slipway.sock'];

/** A data directory an admin command may open; only `serve` creates one. */
export class NoInstallationError extends Error {}

/**
 * Refuses a data directory that does not exist, or (with the embedded database) holds no installation: an admin
 * command run in the wrong directory must not start a new, empty installation there.
 */
export function requireInstallation(dataDir: string, from: 'option' | 'environment' | 'default', externalDatabase: boolean): void {
  const how =
    from === 'option'
      ? 'given with --data-dir'
      : from === 'environment'
        ? 'from SLIPWAY_DATA_DIR'
        : 'the default ./.slipway of the current directory';
  const hint = 'point at the installation with --data-dir DIR or SLIPWAY_DATA_DIR (the directory `slipway serve` runs on), or start it there with `slipway serve`';
  if (!existsSync(dataDir) || !statSync(dataDir).isDirectory()) {
    throw new NoInstallationError(`no Slipway data directory at ${dataDir} (${how}): ${hint}`);
  }
  if (externalDatabase) return;
  if (!MARKERS.some((name) => existsSync(join(dataDir, name)))) {
    throw new NoInstallationError(`${dataDir} (${how}) holds no Slipway installation (no pgdata, master.key or slipway.sock): ${hint}`);
  }
}
