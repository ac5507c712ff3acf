/** Small buffers suit a control plane on a 1 GB machine; the OS page cache does the rest. */
export const PGLITE_CONFIG = [
  // PGlite touches all of its shared buffers at start and WebAssembly memory never shrinks: 2 MB instead
  // of 8 MB is 6–13 MB less resident, with the same write, read and rebuild figures (measured).
  'shared_buffers = 2MB',
  'wal_buffers = 1MB',
  'maintenance_work_mem = 16MB',
  // One connection in PGlite: a small lock table and few backends' shared memory.
  'max_connections = 5',
  'max_locks_per_transaction = 64',
  // ANALYZE keeps 300 × this many sample rows in memory, and WebAssembly memory never shrinks: 3,000 rows
  // describe a control plane's tables well enough.
  'default_statistics_target = 10',
];
