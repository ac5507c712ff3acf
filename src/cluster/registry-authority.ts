import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { z } from 'zod';
import { authorityTools } from '../engines/authority-tools.js';
import type { PemKeyPair } from '../engines/tls-authority.js';
import { privateJson } from '../private-files.js';

const stored = z.object({ certPem: z.string(), keyPem: z.string() });

const FILE = 'cluster-registry-ca.json';

/**
 * The authority of the cluster registry's server certificate, and the only one the nodes trust for the
 * registry's address. Not the installation's: that one signs database servers' certificates, whose keys sit
 * inside containers a project controls, and any of them would otherwise pass for the registry on every node.
 * Kept in the data directory (0600), created on first use, like the agents' authority.
 */
export const registryAuthority = (dataDir: string): Promise<PemKeyPair> =>
  privateJson(join(dataDir, FILE), stored, async () => (await authorityTools()).createAuthority('Slipway cluster registry'));

/** Names an authority by its certificate, in a label the registry container carries (public, like the certificate). */
export const authorityFingerprint = (certPem: string) => createHash('sha256').update(certPem).digest('hex');
