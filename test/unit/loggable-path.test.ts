import t from 'tap';
import { loggablePath } from '../../src/http/errors.js';

t.test('an invitation token stays out of log lines; other paths are kept whole', async (t) => {
  t.equal(loggablePath('/api/invitations/Zm9vYmFyYmF6cXV4X2FiY2RlZmdoaWprbG1ub3BxcnM/accept'), '/api/invitations/…/accept');
  t.equal(loggablePath('/api/invitations/0b6f6f5e-6a43-4d8e-9c1a-1f5c2b7d9e10'), '/api/invitations/0b6f6f5e-6a43-4d8e-9c1a-1f5c2b7d9e10', 'an invitation id is no secret');
  t.equal(loggablePath('/api/projects/shop'), '/api/projects/shop');
});
