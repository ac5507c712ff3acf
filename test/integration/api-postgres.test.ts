import t from 'tap';
import { apiSuite } from '../helpers/api-suite.js';
import { freshDatabase, requirePostgresServer, serverUrl } from '../helpers/postgres-server.js';
import { startTestServer } from '../helpers/test-server.js';

const skip = requirePostgresServer();
if (skip || !serverUrl) {
  t.test('management API on a Postgres server', { skip }, () => undefined);
} else {
  const db = await freshDatabase(serverUrl);
  t.teardown(() => db.drop());
  apiSuite(t, () => startTestServer({ DATABASE_URL: db.url }));
}
