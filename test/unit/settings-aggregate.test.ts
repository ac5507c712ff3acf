import t from 'tap';
import { settings } from '../../commands/settings/aggregate.js';
import type { SettingsEvent } from '../../commands/settings/events.js';
import { deciderSpec } from '../helpers/decider-spec.js';

const spec = deciderSpec(settings);
const storage = { endpoint: 'https://s3.example.com', region: 'r', bucket: 'b', accessKeyId: 'a', secretAccessKey: 'enc:k', prefix: '', forcePathStyle: true };
const connected: SettingsEvent = { type: 'RemoteStorageConnected', data: storage };

t.test('remote storage: connected as probed, disconnected only when connected', async (t) => {
  spec.given().when('connect', storage).then(t, [connected], 'the route probed it: recorded as given');
  spec.given(connected).when('connect', { ...storage, bucket: 'c' }).then(t, [{ type: 'RemoteStorageConnected', data: { ...storage, bucket: 'c' } }], 'a new connect replaces the old one');
  spec.given().when('disconnect').thenThrows(t, { code: 'not_found' });
  const gone = spec.given(connected).when('disconnect');
  gone.then(t, [{ type: 'RemoteStorageDisconnected', data: {} }]);
  t.equal(gone.state.remoteStorage, null);
  gone.given().when('disconnect').thenThrows(t, { code: 'not_found' }, 'a second disconnect is not found');
});

t.test('general settings: only what really changes is recorded, null goes back to the default', async (t) => {
  spec.given().when('changeGeneral', { rootDomain: 'example.com', publicIp: undefined }).then(t, [{ type: 'GeneralSettingsChanged', data: { rootDomain: 'example.com' } }], 'absent keys are not recorded');
  const set = spec.given({ type: 'GeneralSettingsChanged', data: { rootDomain: 'example.com', allowedDestinations: ['10.0.0.0/8'], defaultResources: { memory: '512m' } } });
  t.equal(set.state.general.rootDomain, 'example.com');
  t.equal(set.state.general.publicIp, null, 'a setting never set stays the default');
  set.when('changeGeneral', { rootDomain: 'example.com', allowedDestinations: ['10.0.0.0/8'], defaultResources: { memory: '512m' } }).then(t, [], 'the same values again (new arrays and objects) record nothing');
  set.when('changeGeneral', { rootDomain: 'example.com', httpsEnabled: true }).then(t, [{ type: 'GeneralSettingsChanged', data: { httpsEnabled: true } }], 'only the changed key');
  const reset = set.when('changeGeneral', { rootDomain: null });
  reset.then(t, [{ type: 'GeneralSettingsChanged', data: { rootDomain: null } }]);
  t.equal(reset.state.general.rootDomain, null, 'back to the environment');
  t.same(reset.state.general.allowedDestinations, ['10.0.0.0/8'], 'the other settings are kept');
  spec.given().when('changeGeneral', { rootDomain: null }).then(t, [], 'resetting what was never set records nothing');
});

t.test('DNS and AI providers: connected by id, disconnected only when connected', async (t) => {
  const dns = { providerId: 'powerdns', credentials: 'enc:c', visible: { baseUrl: 'http://ns1:8081' }, zones: ['example.com'] };
  const withDns = spec.given().when('connectDnsProvider', dns).given();
  t.same(withDns.state.dnsProviders, { powerdns: dns });
  withDns.when('disconnectDnsProvider', 'powerdns').then(t, [{ type: 'DnsProviderDisconnected', data: { providerId: 'powerdns' } }]);
  t.same(withDns.when('disconnectDnsProvider', 'powerdns').state.dnsProviders, {});
  withDns.when('disconnectDnsProvider', 'cloudflare').thenThrows(t, { code: 'not_found', message: /DNS provider cloudflare/ });

  const ai = { providerId: 'openai', baseUrl: null, apiKey: 'enc:k', defaultModel: 'm', models: ['m'] };
  const withAi = withDns.when('connectAiProvider', ai).given();
  t.same(withAi.state.aiProviders, { openai: ai });
  t.same(withAi.state.dnsProviders, { powerdns: dns }, 'one kind of provider leaves the other alone');
  withAi.when('disconnectAiProvider', 'openai').then(t, [{ type: 'AiProviderDisconnected', data: { providerId: 'openai' } }]);
  withAi.when('disconnectAiProvider', 'openai').given().when('disconnectAiProvider', 'openai').thenThrows(t, { code: 'not_found', message: /AI provider openai/ });
});
