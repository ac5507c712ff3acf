import t from 'tap';
import { releaseChanges, type ReleaseSnapshot } from '../../commands/release/changes.js';

const base: ReleaseSnapshot = {
  imageId: 'sha256:a',
  env: { API_URL: 'https://a', DATABASE_URL: 'postgres://one', OLD: 'x' },
  settings: { startCommand: null, internalPort: 3000, runtimeMode: 'web', resources: { memory: '256m', cpus: null } },
};

t.test('the first release has nothing to differ from', async (t) => {
  t.equal(releaseChanges(undefined, base), null);
});

t.test('the same release again: nothing changed', async (t) => {
  t.same(releaseChanges(base, { ...base, env: { ...base.env } }), { image: false, variables: { added: [], removed: [], changed: [] }, settings: [] });
});

t.test('image, variables by name, and settings by field', async (t) => {
  const next: ReleaseSnapshot = {
    imageId: 'sha256:b',
    env: { API_KEY: 'secret-value', API_URL: 'https://a', DATABASE_URL: 'postgres://two' },
    settings: { ...base.settings, startCommand: 'node server.js', resources: { memory: '512m' } },
  };
  const changes = releaseChanges(base, next);
  t.same(changes, { image: true, variables: { added: ['API_KEY'], removed: ['OLD'], changed: ['DATABASE_URL'] }, settings: ['startCommand', 'resources'] });
  t.notMatch(JSON.stringify(changes), /secret-value|postgres:/, 'no value leaves');
});

t.test('absent and null settings are the same; key order does not count; a missing check is the default one', async (t) => {
  const before: ReleaseSnapshot = { ...base, settings: { startCommand: null, internalPort: 3000, runtimeMode: 'web' } };
  const after: ReleaseSnapshot = { ...base, settings: { runtimeMode: 'web', internalPort: 3000, startCommand: null, resources: null, healthCheck: 'default' } };
  t.same(releaseChanges(before, after)?.settings, []);
  t.same(releaseChanges(before, { ...after, settings: { ...after.settings, healthCheck: null } })?.settings, ['healthCheck'], 'no check differs from the default one');
  const reordered: ReleaseSnapshot = { ...base, settings: { ...base.settings, resources: { cpus: null, memory: '256m' } } };
  t.same(releaseChanges(base, reordered)?.settings, []);
});

t.test('variables that can no longer be read are not guessed at', async (t) => {
  t.equal(releaseChanges(base, { ...base, env: null })?.variables, null);
  t.equal(releaseChanges({ ...base, env: null }, base)?.variables, null);
});
