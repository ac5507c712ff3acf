import t from 'tap';
import { decideConnect, decideConnectAiProvider, decideConnectDnsProvider, settings } from '../../commands/settings/aggregate.js';

// Settings connections are replaced whole by every PUT: a new destination never inherits a stored credential.
t.test('an AI provider connected again elsewhere without a key keeps none of the old one', async (t) => {
  const given = decideConnectAiProvider(settings.initial, { providerId: 'openai', baseUrl: 'https://api.openai.com/v1', apiKey: 'enc:old', defaultModel: null, models: [] }).reduce(
    settings.evolve,
    settings.initial,
  );
  const events = decideConnectAiProvider(given, { providerId: 'openai', baseUrl: 'https://elsewhere.example.com/v1', apiKey: null, defaultModel: null, models: [] });
  const then = events.reduce(settings.evolve, given);
  t.equal(then.aiProviders.openai?.apiKey, null);
  t.equal(then.aiProviders.openai?.baseUrl, 'https://elsewhere.example.com/v1');
});

t.test('a DNS provider and the remote storage carry only the credentials of their own connect', async (t) => {
  const dns = decideConnectDnsProvider(settings.initial, { providerId: 'powerdns', credentials: 'enc:old', visible: { baseUrl: 'http://ns1:8081' }, zones: [] }).reduce(settings.evolve, settings.initial);
  const moved = decideConnectDnsProvider(dns, { providerId: 'powerdns', credentials: 'enc:new', visible: { baseUrl: 'http://ns2:8081' }, zones: [] }).reduce(settings.evolve, dns);
  t.equal(moved.dnsProviders.powerdns?.credentials, 'enc:new');
  const storage = { endpoint: 'https://s3.example.com', region: 'r', bucket: 'b', accessKeyId: 'a', secretAccessKey: 'enc:old', prefix: '', forcePathStyle: true };
  const connected = decideConnect(settings.initial, storage).reduce(settings.evolve, settings.initial);
  const elsewhere = decideConnect(connected, { ...storage, endpoint: 'https://other.example.com', secretAccessKey: 'enc:new' }).reduce(settings.evolve, connected);
  t.equal(elsewhere.remoteStorage?.secretAccessKey, 'enc:new');
});
