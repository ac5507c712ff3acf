import { createPrivateKey, createPublicKey, randomBytes, webcrypto } from 'node:crypto';
import { isIP } from 'node:net';
// @peculiar/x509's dependency injection (tsyringe) needs the Reflect metadata polyfill loaded first.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import type { JsonGeneralName, X509Certificate } from '@peculiar/x509';

/**
 * The installation's own certificate authority, for database services that speak TLS (Postgres).
 *
 * The authority is created once per installation; each service gets a server certificate for the names
 * its clients dial (its public hostname, its in-network name), signed by the authority. A client that
 * trusts the authority's certificate connects with `sslmode=verify-ca`, or `verify-full` when it dials
 * one of the certificate's names.
 *
 * Keys are ECDSA P-256 with SHA-256 signatures: libpq/OpenSSL, Node's tls, the JDK and Go all accept them,
 * and they are far cheaper to create than RSA. Private keys are unencrypted PKCS#8 PEM
 * ("BEGIN PRIVATE KEY"), which Postgres' `ssl_key_file` loads (the file must be 0600 and owned by the
 * server's user, or root with 0640 and the server's group).
 */

x509.cryptoProvider.set(webcrypto);

export interface PemKeyPair {
  certPem: string;
  keyPem: string;
}

export interface ServerNames {
  /** The first becomes the subject's common name; all of them go into subjectAltName. */
  dnsNames: string[];
  ipAddresses: string[];
}

const DAY_MS = 86_400_000;
/** Ten years: the authority outlives any certificate it signs, and replacing it means redistributing it. */
export const AUTHORITY_VALID_DAYS = 3650;
/** The longest lifetime Apple and the CA/Browser Forum accepted for a server certificate (some clients check). */
export const SERVER_VALID_DAYS = 825;
/** Certificates start slightly in the past so a client whose clock lags does not see them as not yet valid. */
const BACKDATE_MS = 60 * 60 * 1000;
/** RFC 5280's upper bound on a common name; a longer first name is left to subjectAltName alone. */
const MAX_COMMON_NAME = 64;

type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;

const KEY_ALGORITHM: webcrypto.EcKeyGenParams = { name: 'ECDSA', namedCurve: 'P-256' };
const SIGNING_ALGORITHM: webcrypto.EcdsaParams = { name: 'ECDSA', hash: 'SHA-256' };

const { subtle } = webcrypto;

async function generateKeys(): Promise<CryptoKeyPair> {
  return subtle.generateKey(KEY_ALGORITHM, true, ['sign', 'verify']);
}

async function privateKeyPem(key: CryptoKey): Promise<string> {
  const der = await subtle.exportKey('pkcs8', key);
  return x509.PemConverter.encode(der, 'PRIVATE KEY');
}

/** A random positive 128-bit serial (RFC 5280 allows up to 20 octets; CAs must use at least 64 random bits). */
function randomSerial(): string {
  const bytes = randomBytes(16);
  // Positive and without a leading zero octet, so the DER integer is exactly 16 octets.
  bytes[0] = (bytes[0]! & 0x7f) | 0x40;
  return bytes.toString('hex');
}

function validDaysOrThrow(days: number, what: string): number {
  if (!Number.isInteger(days) || days < 1) throw new Error(`${what} must be a whole number of days, at least 1 (got ${days})`);
  return days;
}

/** Lower-case, without a trailing dot; rejects what cannot be a DNS name in a certificate. */
function normaliseDnsName(raw: string): string {
  const name = raw.trim().toLowerCase().replace(/\.$/, '');
  if (name.length === 0) throw new Error('a DNS name in a certificate cannot be empty');
  if (isIP(name) !== 0) throw new Error(`"${raw}" is an IP address: pass it in ipAddresses, not dnsNames`);
  if (name.length > 253) throw new Error(`"${raw}" is longer than a DNS name can be (253 characters)`);
  const labels = name.split('.');
  const wildcard = labels[0] === '*' && labels.length > 2;
  for (const [i, label] of labels.entries()) {
    if (i === 0 && wildcard) continue;
    if (!/^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/.test(label)) {
      throw new Error(`"${raw}" is not a DNS name a certificate can carry (ASCII letters, digits, '-' and '_' in dot-separated labels)`);
    }
  }
  return name;
}

function normaliseIp(raw: string): string {
  const ip = raw.trim();
  if (isIP(ip) === 0) throw new Error(`"${raw}" is not an IPv4 or IPv6 address`);
  return ip;
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}

/** Creates the installation's certificate authority: self-signed, ten years, signs server certificates only. */
export async function createAuthority(commonName: string): Promise<PemKeyPair> {
  const name = commonName.trim();
  if (name.length === 0 || name.length > MAX_COMMON_NAME) {
    throw new Error(`the authority's common name must be 1 to ${MAX_COMMON_NAME} characters (got ${JSON.stringify(commonName)})`);
  }
  const keys = await generateKeys();
  const notBefore = new Date(Date.now() - BACKDATE_MS);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerial(),
    name: [{ CN: [name] }],
    notBefore,
    notAfter: new Date(notBefore.getTime() + AUTHORITY_VALID_DAYS * DAY_MS),
    keys,
    signingAlgorithm: SIGNING_ALGORITHM,
    extensions: [
      // pathLen 0: the authority signs leaves, never another authority.
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certPem: cert.toString('pem'), keyPem: await privateKeyPem(keys.privateKey) };
}

/** Reads an authority back and checks its key belongs to its certificate and that it may sign. */
async function loadAuthority(authority: PemKeyPair): Promise<{ cert: X509Certificate; keyId: string; signingKey: CryptoKey }> {
  const cert = new x509.X509Certificate(authority.certPem);
  // The leaf's authorityKeyIdentifier repeats the authority's subjectKeyIdentifier, so clients can match them.
  const keyId = cert.getExtension(x509.SubjectKeyIdentifierExtension)?.keyId ?? (await x509.SubjectKeyIdentifierExtension.create(cert.publicKey)).keyId;
  const constraints = cert.getExtension(x509.BasicConstraintsExtension);
  if (!constraints?.ca) throw new Error(`"${cert.subject}" is not a certificate authority (basicConstraints CA is not set)`);
  const now = Date.now();
  if (cert.notAfter.getTime() <= now) throw new Error(`the certificate authority "${cert.subject}" expired on ${cert.notAfter.toISOString()}`);

  const spki = createPublicKey(createPrivateKey(authority.keyPem)).export({ type: 'spki', format: 'der' });
  if (!spki.equals(Buffer.from(cert.publicKey.rawData))) {
    throw new Error(`the private key does not belong to the certificate authority "${cert.subject}"`);
  }
  const algorithm = cert.publicKey.algorithm;
  if (algorithm.name !== 'ECDSA') throw new Error(`unsupported certificate authority key: ${algorithm.name} (expected ECDSA)`);
  const signingKey = await subtle.importKey('pkcs8', x509.PemConverter.decodeFirst(authority.keyPem), algorithm, false, ['sign']);
  return { cert, keyId, signingKey };
}

/**
 * Issues a server certificate for `names`, with its own new key, signed by `authority`. Its lifetime is
 * `validDays` (825 by default) but never past the authority's own expiry.
 */
export async function issueServerCertificate(
  authority: PemKeyPair,
  names: ServerNames,
  validDays: number = SERVER_VALID_DAYS,
  /** A client certificate proves who dials (the cluster's agents accept only Slipway's). */
  usage: 'server' | 'client' = 'server',
): Promise<PemKeyPair> {
  validDaysOrThrow(validDays, 'a server certificate');
  const dnsNames = unique(names.dnsNames.map(normaliseDnsName));
  const ipAddresses = unique(names.ipAddresses.map(normaliseIp));
  const commonName = dnsNames[0];
  if (commonName === undefined) throw new Error('a server certificate needs at least one DNS name');

  const ca = await loadAuthority(authority);
  const keys = await generateKeys();
  const notBefore = new Date(Math.max(Date.now() - BACKDATE_MS, ca.cert.notBefore.getTime()));
  const notAfter = new Date(Math.min(notBefore.getTime() + validDays * DAY_MS, ca.cert.notAfter.getTime()));
  // RFC 5280: with an empty subject the subjectAltName must be critical.
  const subjectInCommonName = commonName.length <= MAX_COMMON_NAME;
  const san: JsonGeneralName[] = [
    ...dnsNames.map((value): JsonGeneralName => ({ type: 'dns', value })),
    ...ipAddresses.map((value): JsonGeneralName => ({ type: 'ip', value })),
  ];
  const usages =
    keys.publicKey.algorithm.name === 'ECDSA'
      ? // An EC key signs the handshake; it cannot encipher keys (RFC 5480 §3), so keyEncipherment is RSA-only.
        x509.KeyUsageFlags.digitalSignature
      : x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment;

  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: randomSerial(),
    subject: subjectInCommonName ? [{ CN: [commonName] }] : [],
    issuer: ca.cert.subjectName,
    notBefore,
    notAfter,
    publicKey: keys.publicKey,
    signingKey: ca.signingKey,
    signingAlgorithm: SIGNING_ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(usages, true),
      new x509.ExtendedKeyUsageExtension([usage === 'server' ? x509.ExtendedKeyUsage.serverAuth : x509.ExtendedKeyUsage.clientAuth], false),
      new x509.SubjectAlternativeNameExtension(san, !subjectInCommonName),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      new x509.AuthorityKeyIdentifierExtension(ca.keyId, false),
    ],
  });
  return { certPem: cert.toString('pem'), keyPem: await privateKeyPem(keys.privateKey) };
}

/** When the certificate stops being valid (its notAfter). */
export function certificateExpiresAt(certPem: string): Date {
  return new x509.X509Certificate(certPem).notAfter;
}

/** The DNS names and IP addresses a certificate's subjectAltName covers, to tell whether it still fits a service. */
export function certificateNames(certPem: string): ServerNames {
  const san = new x509.X509Certificate(certPem).getExtension(x509.SubjectAlternativeNameExtension);
  const all = san?.names.items ?? [];
  return {
    dnsNames: all.filter((n) => n.type === 'dns').map((n) => n.value),
    ipAddresses: all.filter((n) => n.type === 'ip').map((n) => n.value),
  };
}
