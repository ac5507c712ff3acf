import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import t from 'tap';
import { createProject, createService } from '../helpers/http-resources.js';
import { destinationOf } from '../helpers/outbound.js';
import { freshDatabase, requirePostgresServer, serverUrl } from '../helpers/postgres-server.js';
import { startTestServer } from '../helpers/test-server.js';

const HOLD_MS = 8_000;

t.test('read models lagging past the settle timeout: one notification is POSTed once', { skip: requirePostgresServer() }, async (t) => {
  const database = await freshDatabase(serverUrl!);
  t.teardown(() => database.drop());
  const holder = new pg.Client({ connectionString: database.url });
  await holder.connect();
  t.teardown(() => holder.end().catch(() => undefined));

  // A real receiver that, on its first request, holds a lock on the notifications read model before it answers:
  // the delivery Slipway records next cannot reach the read model while the transaction stays open.
  const posts: string[] = [];
  let held: Promise<void> | null = null;
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      posts.push(Buffer.concat(chunks).toString('utf8'));
      const locked = (held ??= (async () => {
        await holder.query('begin');
        // EXCLUSIVE: writes wait, reads go on (the notifier still finds the row it already delivered as pending).
        await holder.query('lock table rm_notifications in exclusive mode');
      })());
      void locked.then(() => res.writeHead(200).end('ok'));
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => receiver.close(() => resolve())));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

  const s = await startTestServer({ DATABASE_URL: database.url, SLIPWAY_ALLOW_DESTINATIONS: destinationOf(url), SLIPWAY_SETTLE_TIMEOUT: '1', SLIPWAY_NOTIFICATION_RETRY: '0.2' });
  t.teardown(() => s.close());
  const p = await createProject(s, 'Lag');
  const channel = (await s.call('POST', '/api/notification-channels', { body: { name: 'ops', type: 'webhook', config: { url: `${url}/hook` } } })).body.channel;
  // Deployments fail at once here (no Docker engine is configured): one DeploymentFailed, one notification.
  const service = await createService(s, p.id, { name: 'web', repoUrl: 'https://github.com/example/app', branch: 'main', internalPort: 3000 });
  void s.call('POST', `/api/services/${service.id}/deployments`);

  const end = Date.now() + 30_000;
  while (held === null) {
    if (Date.now() > end) throw new Error('the notification never came');
    await new Promise((r) => setTimeout(r, 50));
  }
  await held;
  // The read models stay behind for HOLD_MS (far past the 1 s settle timeout) while the notifier keeps running.
  await new Promise((r) => setTimeout(r, HOLD_MS));
  t.equal(posts.length, 1, `one POST while the read models lagged (got ${posts.length})`);
  await holder.query('commit');

  for (;;) {
    const deliveries = (await s.call('GET', `/api/notification-channels/${channel.id}/deliveries`)).body.deliveries as { status: string; attempts: unknown[] }[];
    if (deliveries[0]?.status === 'delivered') {
      t.equal(deliveries[0].attempts.length, 1, 'one attempt recorded');
      break;
    }
    if (Date.now() > end + HOLD_MS) throw new Error(`not delivered: ${JSON.stringify(deliveries)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  t.equal(posts.length, 1, 'and still one once they caught up');
});
