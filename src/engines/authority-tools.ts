/**
 * The certificate tools, loaded on first use: @peculiar/x509 and its dependencies are ≈ 10 MB of resident
 * memory that an installation without TLS databases or a cluster never needs.
 */
export const authorityTools = () => import('./tls-authority.js');
