import { openPglite } from '../../src/db/pglite-client.js';

// A script that opens PGlite, uses it and never closes it: it must still end by itself.
const db = await openPglite(undefined);
const { rows } = await db.query<{ n: number }>('select 41 + 1 as n');
console.log(rows[0]!.n);
