import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The folder of Slipway's package.json, found upwards: the sources run from src/ (tsx) or from dist/src/. */
export function packageRoot(): string {
  for (let dir = import.meta.dirname; dir !== dirname(dir); dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
  }
  throw new Error('Slipway’s package.json was not found above its sources');
}
