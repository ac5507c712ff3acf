import { PGlite } from '@electric-sql/pglite';
import { PGLITE_CONFIG } from './pglite-config.js';

// Run as a child process: initdb needs several hundred MB that a process never gives back.
const dataDir = process.argv[2];
if (!dataDir) throw new Error('usage: pglite-init <data dir>');
const db = await PGlite.create(dataDir, { postgresqlconf: PGLITE_CONFIG });
await db.close();
