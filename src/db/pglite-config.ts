/** Small buffers suit a control plane on a 1 GB machine; the OS page cache does the rest. */
export const PGLITE_CONFIG = [
  // PGlite touches all of its shared buffers at start and WebAssembly memory never shrinks: 2 MB instead
  // of 8 MB is 6–13 MB less resident, with the same write, read and rebuild figures (measured).
  'shared_buffers = 2MB',
  // WAL buffers, WAL senders and replication slots are shared memory PGlite touches at start and never uses
  // much of (one process, no replicas): 5 MB of shared memory instead of 7, 3–4 MB less resident (measured).
  'wal_buffers = 64kB',
  'max_wal_senders = 0',
  'max_replication_slots = 0',
  'autovacuum_max_workers = 1',
  'maintenance_work_mem = 16MB',
  // One connection in PGlite: a small lock table and few backends' shared memory.
  'max_connections = 5',
  'max_locks_per_transaction = 64',
  // ANALYZE keeps 300 × this many sample rows in memory, and WebAssembly memory never shrinks: 3,000 rows
  // describe a control plane's tables well enough.
  'default_statistics_target = 10',
];
