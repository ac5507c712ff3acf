import t from 'tap';
import { apiSuite } from '../helpers/api-suite.js';
import { apiSuiteRequirements, startSuiteServer } from '../helpers/http-suite-server.js';
import { ON_PGLITE } from '../helpers/test-server.js';

const skip = await apiSuiteRequirements();
if (skip) t.test('management API on PGlite', { skip }, () => undefined);
else apiSuite(t, () => startSuiteServer(ON_PGLITE));
