import t from 'tap';
import { hostLabel, normalName, zoneForHostname } from '../../src/integrations/dns/zones.js';

const zones = [{ name: 'example.com' }, { name: 'sub.example.com' }, { name: 'badexample.com' }, { name: 'Other.TEST.' }];

t.test('zoneForHostname: the longest suffix on a label boundary', async (t) => {
  t.equal(zoneForHostname('app.example.com', zones)?.name, 'example.com');
  t.equal(zoneForHostname('a.b.sub.example.com', zones)?.name, 'sub.example.com', 'the longest suffix wins');
  t.equal(zoneForHostname('a.b.sub.example.com', [...zones].reverse())?.name, 'sub.example.com', 'whatever the order');
  t.equal(zoneForHostname('sub.example.com', zones)?.name, 'sub.example.com', 'the apex of the child zone');
  t.equal(zoneForHostname('example.com', zones)?.name, 'example.com', 'the apex of the parent zone');
  t.equal(zoneForHostname('xsub.example.com', zones)?.name, 'example.com', 'xsub is not in sub');
  t.equal(zoneForHostname('badexample.com', zones)?.name, 'badexample.com', 'its own zone, not example.com');
  t.equal(zoneForHostname('www.badexample.com', zones)?.name, 'badexample.com');
  t.equal(zoneForHostname('xbadexample.com', zones), null, 'only on a label boundary');
  t.equal(zoneForHostname('notexample.com', [{ name: 'example.com' }]), null);
  t.equal(zoneForHostname('com', zones), null, 'a parent of every zone is in none');
  t.equal(zoneForHostname('APP.other.test.', zones)?.name, 'Other.TEST.', 'case and a trailing dot do not matter');
  t.equal(zoneForHostname('app.example.com', []), null);
  const zone = { id: 'z1', name: 'example.com' };
  t.equal(zoneForHostname('a.example.com', [zone]), zone, 'the zone object itself');
});

t.test('hostLabel: the part before the zone, @ for the apex', async (t) => {
  t.equal(hostLabel('a.b.sub.example.com', 'sub.example.com'), 'a.b');
  t.equal(hostLabel('www.example.com', 'example.com'), 'www');
  t.equal(hostLabel('example.com', 'example.com'), '@');
  t.equal(hostLabel('Example.COM.', 'example.com'), '@');
  t.equal(hostLabel('App.Other.test', 'other.test.'), 'app');
  t.throws(() => hostLabel('www.badexample.com', 'example.com'), /not in the zone example\.com/);
});

t.test('normalName', async (t) => {
  t.equal(normalName('WWW.Example.COM.'), 'www.example.com');
  t.equal(normalName('example.com'), 'example.com');
});
