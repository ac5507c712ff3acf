/** Small buffers suit a control plane on a 1 GB machine; the OS page cache does the rest. */
export const PGLITE_CONFIG = [
  'shared_buffers = 8MB',
  'wal_buffers = 1MB',
  'maintenance_work_mem = 16MB',
  // One connection in PGlite: a small lock table and few backends' shared memory.
  'max_connections = 5',
  'max_locks_per_transaction = 64',
  // ANALYZE keeps 300 × this many sample rows in memory, and WebAssembly memory never shrinks: 3,000 rows
  // describe a control plane's tables well enough.
  'default_statistics_target = 10',
];
