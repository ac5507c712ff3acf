import t from 'tap';
import { createProject, createService } from '../helpers/api-suite.js';
import { startTestServer } from '../helpers/test-server.js';

t.test('no plaintext secret in the event log; deleting a service shreds its key', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  const p = await createProject(s, 'Secrets');
  const secrets = ['ghp_thisIsAGitToken123', 'sk_live_envSecretValue', 'initial-env-secret-42', 'rotated_token_777'];
  const svc = await createService(s, p.id, {
    name: 'pay',
    repoFullName: 'acme/pay',
    branch: 'main',
    gitToken: secrets[0],
    env: [{ key: 'INITIAL', value: secrets[2] }],
  });
  await s.call('POST', `/api/services/${svc.id}/env`, { body: { key: 'STRIPE_KEY', value: secrets[1] } });
  await s.call('PATCH', `/api/services/${svc.id}`, { body: { gitToken: secrets[3] } });
  const db = await createService(s, p.id, { name: 'db', repoFullName: 'database:postgres', repoUrl: 'database', branch: 'main', internalPort: 5432, databasePublicEnabled: false, env: [] });
  const dbPassword = (await s.call('GET', `/api/services/${db.id}/overview`)).body.env.find((e: { key: string }) => e.key === 'POSTGRES_PASSWORD').value;
  secrets.push(dbPassword);

  const raw = await s.app.db.query<{ data: unknown; metadata: unknown }>('select data, metadata from es_events');
  const log = JSON.stringify(raw.rows);
  for (const secret of secrets) t.notMatch(log, secret, `${secret.slice(0, 6)}… is not in the event log`);
  t.match(log, /enc:v1:/, 'encrypted fields are there instead');
  const readModels = JSON.stringify((await s.app.db.query('select * from rm_env')).rows) + JSON.stringify((await s.app.db.query('select * from rm_services')).rows);
  for (const secret of secrets) t.notMatch(readModels, secret, 'nor in the read models');

  const overview = (await s.call('GET', `/api/services/${svc.id}/overview`)).body;
  t.equal(overview.service.hasGitToken, true);
  t.notMatch(JSON.stringify(overview), secrets[0]!);
  t.notMatch(JSON.stringify(overview), secrets[3]!);
  t.equal(overview.env.find((e: { key: string }) => e.key === 'STRIPE_KEY').value, secrets[1], 'the owner still reads the value through the API');

  const sealed = raw.rows.map((r) => JSON.stringify(r.data)).join('').match(new RegExp(`enc:v1:${svc.id}:[^"]+`))![0];
  t.equal(await s.app.keyring.decrypt(sealed) !== null, true, 'readable while the service lives');
  await s.call('DELETE', `/api/services/${svc.id}`);
  t.equal(await s.app.keyring.decrypt(sealed), null, 'crypto-shredded once it is deleted');
  const keys = await s.app.db.query('select * from sec_data_keys where aggregate_id = $1', [svc.id]);
  t.equal(keys.rows.length, 0);
});
