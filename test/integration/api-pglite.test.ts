import t from 'tap';
import { apiSuite } from '../helpers/api-suite.js';
import { startTestServer } from '../helpers/test-server.js';

apiSuite(t, () => startTestServer());
