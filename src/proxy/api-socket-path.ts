import { join } from 'node:path';

/** Where the Caddy Slipway runs reaches the API for `apiDomain`: a socket only Slipway's user can open. */
export const apiSocketPath = (dataDir: string) => join(dataDir, 'api.sock');
