import { createHash } from 'node:crypto';
import { renameSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { createAuthority, type PemKeyPair } from '../engines/tls-authority.js';
import { openPrivateFile, writePrivateFile } from '../private-files.js';

const stored = z.object({ certPem: z.string(), keyPem: z.string() });

const FILE = 'cluster-registry-ca.json';

/**
 * The authority of the cluster registry's server certificate, and the only one the nodes trust for the
 * registry's address. Not the installation's: that one signs database servers' certificates, whose keys sit
 * inside containers a project controls, and any of them would otherwise pass for the registry on every node.
 * Kept in the data directory (0600), created on first use, like the agents' authority.
 */
export async function registryAuthority(dataDir: string): Promise<PemKeyPair> {
  const path = join(dataDir, FILE);
  const opened = await openPrivateFile(path);
  if (opened) {
    try {
      return stored.parse(JSON.parse((await opened.handle.readFile()).toString('utf8')));
    } finally {
      await opened.handle.close();
    }
  }
  const created = await createAuthority('Slipway cluster registry');
  // Written aside and renamed: a crash leaves the old file or the new one, never half of one.
  const aside = `${path}.${process.pid}.new`;
  writePrivateFile(aside, JSON.stringify(created));
  renameSync(aside, path);
  return created;
}

/** Names an authority by its certificate, in a label the registry container carries (public, like the certificate). */
export const authorityFingerprint = (certPem: string) => createHash('sha256').update(certPem).digest('hex');
