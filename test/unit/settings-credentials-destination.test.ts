import t from 'tap';
import { settings } from '../../commands/settings/aggregate.js';
import { deciderSpec } from '../helpers/decider-spec.js';

const spec = deciderSpec(settings);

// Settings connections are replaced whole by every PUT: a new destination never inherits a stored credential.
t.test('an AI provider connected again elsewhere without a key keeps none of the old one', async (t) => {
  const given = spec.given().when('connectAiProvider', { providerId: 'openai', baseUrl: 'https://api.openai.com/v1', apiKey: 'enc:old', defaultModel: null, models: [] }).given();
  const then = given.when('connectAiProvider', { providerId: 'openai', baseUrl: 'https://elsewhere.example.com/v1', apiKey: null, defaultModel: null, models: [] }).state;
  t.equal(then.aiProviders.openai?.apiKey, null);
  t.equal(then.aiProviders.openai?.baseUrl, 'https://elsewhere.example.com/v1');
});

t.test('a DNS provider and the remote storage carry only the credentials of their own connect', async (t) => {
  const dns = spec.given().when('connectDnsProvider', { providerId: 'powerdns', credentials: 'enc:old', visible: { baseUrl: 'http://ns1:8081' }, zones: [] }).given();
  const moved = dns.when('connectDnsProvider', { providerId: 'powerdns', credentials: 'enc:new', visible: { baseUrl: 'http://ns2:8081' }, zones: [] }).state;
  t.equal(moved.dnsProviders.powerdns?.credentials, 'enc:new');
  const storage = { endpoint: 'https://s3.example.com', region: 'r', bucket: 'b', accessKeyId: 'a', secretAccessKey: 'enc:old', prefix: '', forcePathStyle: true };
  const connected = spec.given().when('connect', storage).given();
  const elsewhere = connected.when('connect', { ...storage, endpoint: 'https://other.example.com', secretAccessKey: 'enc:new' }).state;
  t.equal(elsewhere.remoteStorage?.secretAccessKey, 'enc:new');
});
