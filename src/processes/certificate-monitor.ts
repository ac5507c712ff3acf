import { recordCertificateChange } from '../../commands/service/handlers.js';
import type { CertificateState } from '../../commands/service/events.js';
import type { CommandContext } from '../../commands/shared/command-context.js';
import { listAllDomains, type DomainRow } from '../../projections/service-queries.js';
import type { SqlExecutor } from '../db/sql-client.js';
import type { EffectiveSettings } from '../installation-settings.js';
import type { Logger } from '../logger.js';
import type { CertificateStatusReader } from '../proxy/certificate-status.js';
import type { Reactor } from './reactor.js';

export interface CertificateMonitorDeps {
  cmd: CommandContext;
  db: SqlExecutor;
  settings(): Promise<EffectiveSettings>;
  /** Caddy's own view (its certificate storage and log) for the ACME directory in force. */
  reader(acmeDirectoryUrl: string): CertificateStatusReader;
}

const isoOrNull = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());

function recorded(row: DomainRow): CertificateState {
  return { status: row.certificate_status ?? 'pending', reason: row.certificate_reason, notAfter: isoOrNull(row.certificate_not_after), issuer: row.certificate_issuer };
}

const same = (a: CertificateState, b: CertificateState) => a.status === b.status && a.reason === b.reason && a.notAfter === b.notAfter && a.issuer === b.issuer;

/**
 * Records each domain's certificate state as Caddy reports it: from its storage (issued, renewed) and its log
 * (a failed order), never assumed. Runs on the process managers' reconcile tick; only changes are appended.
 */
export class CertificateMonitor implements Reactor {
  readonly name = 'certificates';
  private reader: { url: string; reader: CertificateStatusReader } | null = null;

  constructor(
    private readonly deps: CertificateMonitorDeps,
    private readonly log: Logger,
  ) {}

  async handle(): Promise<void> {}

  async reconcile(): Promise<void> {
    const settings = await this.deps.settings();
    if (!settings.httpsEnabled) return;
    const domains = await listAllDomains(this.deps.db);
    if (domains.length === 0) return;
    const states = await this.readerFor(settings.acmeDirectoryUrl).read(domains.map((d) => d.hostname));
    for (const domain of domains) {
      const seen = states.get(domain.hostname);
      if (!seen) continue;
      const now: CertificateState = { status: seen.status, reason: seen.reason, notAfter: isoOrNull(seen.notAfter), issuer: seen.issuer };
      if (same(now, recorded(domain))) continue;
      try {
        await recordCertificateChange(this.deps.cmd, domain.service_id, domain.id, domain.hostname, now);
      } catch (error) {
        this.log.warn('certificate state could not be recorded', { domain: domain.hostname, error: String(error) });
      }
    }
  }

  private readerFor(url: string): CertificateStatusReader {
    if (this.reader?.url !== url) this.reader = { url, reader: this.deps.reader(url) };
    return this.reader.reader;
  }
}
