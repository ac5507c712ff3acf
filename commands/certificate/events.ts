import { z } from 'zod';
import { eventParser, type EventsOf } from '../shared/event.js';

/**
 * The installation's certificate authority (`certificate-authority`) and the server certificates of
 * Postgres-compatible services (`certificate-<serviceId>`). Private keys are stored sealed: the
 * authority's under its own data key, a service's under the service's (shredded when it is deleted).
 */
export const certificateEvents = {
  CertificateAuthorityCreated: z.object({ certPem: z.string(), key: z.string() }),
  ServerCertificateIssued: z.object({
    serviceId: z.string(),
    projectId: z.string(),
    dnsNames: z.array(z.string()),
    ipAddresses: z.array(z.string()),
    certPem: z.string(),
    key: z.string(),
    expiresAt: z.string(),
  }),
};
export type CertificateEvent = EventsOf<typeof certificateEvents>;
export const parseCertificateEvent = eventParser(certificateEvents);
export const CERTIFICATE_CATEGORY = 'certificate';
export const AUTHORITY_ID = 'authority';
