import t from 'tap';
import { apiSuite } from '../helpers/api-suite.js';
import { apiSuiteRequirements, startSuiteServer } from '../helpers/http-suite-server.js';
import { freshDatabase, requirePostgresServer, serverUrl } from '../helpers/postgres-server.js';

const skip = requirePostgresServer() || (await apiSuiteRequirements());
if (skip || !serverUrl) {
  t.test('management API on a Postgres server', { skip: skip || 'no server' }, () => undefined);
} else {
  const db = await freshDatabase(serverUrl);
  t.teardown(() => db.drop());
  apiSuite(t, () => startSuiteServer({ DATABASE_URL: db.url }));
}
