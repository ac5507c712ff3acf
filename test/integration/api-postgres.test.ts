import t from 'tap';
import { apiSuite } from '../helpers/api-suite.js';
import { freshDatabase, noServerReason, serverUrl } from '../helpers/postgres-server.js';
import { startTestServer } from '../helpers/test-server.js';

if (!serverUrl) {
  t.test('management API on a Postgres server', { skip: noServerReason }, () => undefined);
} else {
  const db = await freshDatabase(serverUrl);
  t.teardown(() => db.drop());
  apiSuite(t, () => startTestServer({ DATABASE_URL: db.url }));
}
