import t from 'tap';
import { createProject, createService } from '../helpers/api-suite.js';
import { holdChunked, statusOfAnswer } from '../helpers/held-request.js';
import { startTestServer } from '../helpers/test-server.js';
import { deliver, genericPush } from '../helpers/webhooks.js';

// Its own file: the deadlines take 30 s to pass, and the other hook limits have their own time budget.
const s = await startTestServer();
t.teardown(() => s.close());
const project = await createProject(s, 'Hook deadlines');
const port = Number(new URL(s.url).port);
const sha = (n: number) => n.toString(16).padStart(40, 'c');

async function hooked(name: string) {
  const svc = await createService(s, project.id, { name, repoFullName: `acme/${name}`, branch: 'main', internalPort: 8080, env: [] });
  const r = await s.call('PUT', `/api/services/${svc.id}/auto-deploy`, { body: { enabled: true, provider: 'generic' } });
  if (r.status !== 200) throw new Error(`auto-deploy: ${r.status} ${JSON.stringify(r.body)}`);
  return { secret: r.body.autoDeploy.secret as string, path: `/api/hooks/${svc.id}/generic` };
}

const chunked = (path: string) => holdChunked(port, path);
const statusOf = statusOfAnswer;

t.test('a body must keep coming: 408 after 10 s without a byte, or 30 s in all', async (t) => {
  const idleOne = await hooked('idle');
  const slowOne = await hooked('slow');
  const idle = chunked(idleOne.path);
  const slow = chunked(slowOne.path);
  const trickle = setInterval(() => slow.socket.write('1\r\n \r\n'), 2_000);
  t.teardown(() => {
    clearInterval(trickle);
    idle.socket.destroy();
    slow.socket.destroy();
  });
  const idleAnswer = await idle.answer;
  t.equal(statusOf(idleAnswer), 408, 'silent: 408');
  t.match(idleAnswer, /"request_timeout"/);
  t.equal(statusOf(await slow.answer), 408, 'a byte every 2 s: 408 at the total deadline');
  clearInterval(trickle);
  t.equal((await deliver(s.url, idleOne.path, genericPush(idleOne.secret, 'refs/heads/main', sha(5)))).status, 202, 'the service takes deliveries again');
});
