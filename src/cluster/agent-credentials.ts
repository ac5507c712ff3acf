import { join } from 'node:path';
import { z } from 'zod';
import { authorityTools } from '../engines/authority-tools.js';
import type { PemKeyPair } from '../engines/tls-authority.js';
import { privateJson } from '../private-files.js';

/** The name in the agents' certificate: Slipway dials nodes by address and checks this name instead. */
export const AGENT_NAME = 'slipway-agent';

const pair = z.object({ certPem: z.string(), keyPem: z.string() });
const stored = z.object({ authority: pair, agent: pair, slipway: pair });

/**
 * The mutual TLS between Slipway and the agents on the cluster's nodes. It has an authority of its own, not
 * the installation's: that one signs database servers' certificates, whose keys sit inside containers a
 * project controls, and an agent must accept no certificate but Slipway's own client one.
 */
export type AgentCredentials = z.infer<typeof stored>;

const FILE = 'cluster-agent.json';

/** The credentials in the data directory, created (0600) on first use. */
export const agentCredentials = (dataDir: string): Promise<AgentCredentials> =>
  privateJson(join(dataDir, FILE), stored, async () => {
    const { createAuthority, issueServerCertificate } = await authorityTools();
    const authority: PemKeyPair = await createAuthority('Slipway cluster agents');
    return {
      authority,
      agent: await issueServerCertificate(authority, { dnsNames: [AGENT_NAME], ipAddresses: [] }),
      slipway: await issueServerCertificate(authority, { dnsNames: ['slipway'], ipAddresses: [] }, undefined, 'client'),
    };
  });
