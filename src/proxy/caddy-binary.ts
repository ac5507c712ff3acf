import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Where `command` runs from: itself when it names a path, else the first executable of that name on `searchPath`. */
export function findExecutable(command: string, searchPath = process.env.PATH ?? ''): string | null {
  if (command.includes('/')) return isExecutableFile(command) ? resolve(command) : null;
  // An empty PATH entry would mean the working directory: not a place to pick a proxy from.
  for (const dir of searchPath.split(delimiter).filter(Boolean)) {
    const candidate = join(dir, command);
    if (isExecutableFile(candidate)) return candidate;
  }
  return null;
}

/**
 * The Caddy executable Slipway will start, checked before anything else starts: without it the server
 * would come up and then fail every deployment at the route switch.
 */
export function requireCaddyBinary(binary: string, searchPath = process.env.PATH ?? ''): string {
  const found = findExecutable(binary, searchPath);
  if (found) return found;
  const what = binary.includes('/') ? `${binary} is not an executable file` : `no "${binary}" executable on PATH`;
  throw new Error(
    [
      `the proxy is on (SLIPWAY_PROXY=caddy) and Slipway runs Caddy itself, but ${what}. Do one of:`,
      '  - install Caddy: apt-get install caddy',
      '  - set SLIPWAY_CADDY_BIN to the path of a caddy executable',
      '  - set SLIPWAY_CADDY_ADMIN to the admin API of a Caddy that already runs, e.g. http://127.0.0.1:2019',
      '  - set SLIPWAY_PROXY=off to run without a proxy (deployed web services are then not routed)',
    ].join('\n'),
  );
}
