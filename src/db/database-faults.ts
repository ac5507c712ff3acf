/**
 * Whether an error says the database or the way to it is in trouble (a lost connection, a server shutting
 * down, no resources, a lock or serialization conflict, a thread that stopped), as opposed to a statement
 * that fails on its own merits. Work that meets such a fault waits and tries again; it never blames (parks)
 * the event it was applying.
 */
export function isDatabaseFault(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string') {
    // SQLSTATE classes: 08 connection, 53 insufficient resources, 57 operator intervention (shutdown,
    // cancel), 58 system error; 40001/40P01 serialization and deadlock; 55P03 lock not available.
    if (/^(08|53|57|58)/.test(code) || code === '40001' || code === '40P01' || code === '55P03') return true;
    if (/^E[A-Z]+$/.test(code) && NODE_NETWORK_CODES.has(code)) return true;
  }
  return typeof message === 'string' && GONE.test(message);
}

const NODE_NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/** What `pg` and our PGlite client say when the connection, rather than the statement, failed. */
const GONE =
  /Connection terminated|connection error|timeout exceeded when trying to connect|Client was closed|the PGlite thread (failed|stopped)|terminating connection|the database system is (starting up|shutting down)/i;
