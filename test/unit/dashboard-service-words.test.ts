import t from 'tap';
import { actorWords } from '../../src/dashboard/actor-words.js';
import { durationWords } from '../../src/dashboard/duration.js';
import { releaseChangeWords } from '../../src/dashboard/release-change-words.js';

t.test('who: a key by its name, else "a key" and its short id; Slipway; the CLI; you', async (t) => {
  t.equal(actorWords('key:1a2b3c4d-0000', 'deployer', null), 'deployer');
  t.equal(actorWords('key:1a2b3c4d-0000', null, null), 'a key 1a2b3c4d');
  t.equal(actorWords('key:1a2b3c4d-0000', 'deployer', '1a2b3c4d-0000'), 'deployer (you)');
  t.equal(actorWords('system:deployer', null, null), 'Slipway');
  t.equal(actorWords('system', null, null), 'Slipway');
  t.equal(actorWords('cli', null, null), 'the CLI');
  t.equal(actorWords(null, null, null), '—');
});

t.test('what a release changed, in one line', async (t) => {
  t.equal(releaseChangeWords(null), 'first release');
  t.equal(
    releaseChangeWords({ image: true, variables: { added: ['API_KEY'], removed: ['OLD'], changed: ['DATABASE_URL'] }, settings: ['startCommand'] }),
    'image · +API_KEY −OLD · changed: DATABASE_URL · settings: startCommand',
  );
  t.equal(releaseChangeWords({ image: false, variables: { added: [], removed: [], changed: [] }, settings: [] }), 'no change');
  t.equal(releaseChangeWords({ image: false, variables: null, settings: ['resources'] }), 'variables unknown · settings: resources');
});

t.test('durations in their two largest units', async (t) => {
  t.equal(durationWords(42_400), '42 s');
  t.equal(durationWords(185_000), '3 min 5 s');
  t.equal(durationWords(120_000), '2 min');
  t.equal(durationWords(3_720_000), '1 h 2 min');
  t.equal(durationWords(-5), '0 s');
});
