import { randomUUID } from 'node:crypto';
import {
  AUTHORITY_ID,
  CERTIFICATE_CATEGORY,
  parseCertificateEvent,
  type CertificateEvent,
} from '../../commands/certificate/events.js';
import type { CommandContext } from '../../commands/shared/command-context.js';
import { currentSchemaVersion } from '../../commands/upcasters.js';
import type { ServiceRow } from '../../projections/service-queries.js';
import { WrongExpectedRevisionError } from '../eventstore/port.js';
import type { ServerTls } from './engine-plans.js';
import type { PemKeyPair } from './tls-authority.js';
import { authorityTools } from './authority-tools.js';

/** A server certificate is renewed at the deployment that finds it this close to its end. */
const RENEW_BEFORE_MS = 30 * 24 * 3600 * 1000;

const streamOf = (id: string) => `${CERTIFICATE_CATEGORY}-${id}`;

type Issued = Extract<CertificateEvent, { type: 'ServerCertificateIssued' }>['data'];

export interface TlsInfo {
  active: boolean;
  caCertAvailable: boolean;
  publicHostname: string;
  publicPort: number;
}

/**
 * The installation's own CA and the server certificates of Postgres-compatible services, kept as events
 * (keys sealed). The CA is created at the first deployment that needs it; a service's certificate is issued
 * once and kept across redeploys, and issued again only when its names change or it nears its end.
 */
export class Certificates {
  private authority: PemKeyPair | null = null;

  constructor(
    private readonly cmd: CommandContext,
    /** The public address in force now (settings or environment). */
    private readonly publicIp: () => Promise<string>,
  ) {}

  async authorityPem(): Promise<string | null> {
    return (await this.loadAuthority())?.certPem ?? null;
  }

  /** The CA Slipway verifies the service against when it connects itself, or null if it runs without TLS. */
  async trustedAuthority(row: ServiceRow): Promise<string | null> {
    return (await this.latestIssued(row.id)) ? this.authorityPem() : null;
  }

  async tlsInfo(row: ServiceRow): Promise<TlsInfo> {
    const issued = await this.latestIssued(row.id);
    return {
      active: Boolean(issued && row.current_container),
      caCertAvailable: (await this.authorityPem()) !== null,
      // A database bound to loopback is reached from this host only, by the name its certificate holds for it.
      publicHostname: row.database_public_enabled ? (row.database_public_hostname ?? (await this.publicIp())) : 'localhost',
      publicPort: row.host_port,
    };
  }

  /** The certificate and key a deployment installs, issued or renewed as needed. */
  async serverTls(row: ServiceRow): Promise<ServerTls> {
    const authority = await this.ensureAuthority();
    const names = this.namesOf(row, await this.publicIp());
    let issued = await this.latestIssued(row.id);
    const key = issued ? await this.cmd.keyring.decrypt(issued.key) : null;
    if (!issued || !key || !sameNames(issued, names) || Date.parse(issued.expiresAt) - Date.now() < RENEW_BEFORE_MS) {
      const { issueServerCertificate, certificateExpiresAt } = await authorityTools();
      const pair = await issueServerCertificate(authority, names);
      issued = {
        serviceId: row.id,
        projectId: row.project_id,
        ...names,
        certPem: pair.certPem,
        key: await this.cmd.keyring.encrypt(row.id, pair.keyPem),
        expiresAt: certificateExpiresAt(pair.certPem).toISOString(),
      };
      await this.append(row.id, { type: 'ServerCertificateIssued', data: issued }, 'any');
      return { certPem: pair.certPem, keyPem: pair.keyPem, caPem: authority.certPem };
    }
    return { certPem: issued.certPem, keyPem: key, caPem: authority.certPem };
  }

  /** The service's public hostname (verify-full from outside), its name on the project network, and loopback. */
  private namesOf(row: ServiceRow, publicIp: string) {
    const dnsNames = [...new Set([row.database_public_hostname, row.slug, 'localhost'].filter((n): n is string => Boolean(n)))];
    const ipAddresses = [...new Set(['127.0.0.1', /^\d+\.\d+\.\d+\.\d+$/.test(publicIp) ? publicIp : null].filter((n): n is string => Boolean(n)))];
    return { dnsNames, ipAddresses };
  }

  private async latestIssued(serviceId: string): Promise<Issued | null> {
    const [last] = await this.cmd.store.readStream(streamOf(serviceId), { direction: 'backwards', maxCount: 1 });
    const event = last ? parseCertificateEvent(last) : null;
    return event?.type === 'ServerCertificateIssued' ? event.data : null;
  }

  private async loadAuthority(): Promise<PemKeyPair | null> {
    if (this.authority) return this.authority;
    const [first] = await this.cmd.store.readStream(streamOf(AUTHORITY_ID), { maxCount: 1 });
    const event = first ? parseCertificateEvent(first) : null;
    if (event?.type !== 'CertificateAuthorityCreated') return null;
    const keyPem = await this.cmd.keyring.decrypt(event.data.key);
    if (!keyPem) throw new Error('the key of the certificate authority cannot be decrypted');
    this.authority = { certPem: event.data.certPem, keyPem };
    return this.authority;
  }

  /** The installation's CA, created at its first use (a database with TLS, or the cluster's registry). */
  async ensureAuthority(): Promise<PemKeyPair> {
    const existing = await this.loadAuthority();
    if (existing) return existing;
    const pair = await (await authorityTools()).createAuthority('Slipway database CA');
    try {
      const key = await this.cmd.keyring.encrypt(AUTHORITY_ID, pair.keyPem);
      await this.append(AUTHORITY_ID, { type: 'CertificateAuthorityCreated', data: { certPem: pair.certPem, key } }, 'no_stream');
    } catch (error) {
      // Another deployment created it first: use theirs.
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
    }
    return (await this.loadAuthority())!;
  }

  private async append(id: string, event: CertificateEvent, expected: 'any' | 'no_stream') {
    await this.cmd.store.append(
      streamOf(id),
      [
        {
          id: randomUUID(),
          type: event.type,
          schemaVersion: currentSchemaVersion(event.type),
          data: event.data as Record<string, unknown>,
          metadata: { actor: this.cmd.actor, correlationId: this.cmd.correlationId, causationId: this.cmd.causationId ?? null },
        },
      ],
      expected,
    );
  }
}

const sameNames = (issued: Issued, names: { dnsNames: string[]; ipAddresses: string[] }) =>
  issued.dnsNames.join(',') === names.dnsNames.join(',') && issued.ipAddresses.join(',') === names.ipAddresses.join(',');
