import t from 'tap';
import { backupSettings, DEFAULT_BACKUP_SETTINGS } from '../../commands/backup-settings/aggregate.js';
import { deciderSpec } from '../helpers/decider-spec.js';

const spec = deciderSpec(backupSettings);
const owner = { serviceId: 's', projectId: 'p' };
const daily = { ...DEFAULT_BACKUP_SETTINGS, automaticEnabled: true, weeklyEnabled: false };

t.test('until changed, a service has the default settings', async (t) => {
  t.same(spec.given().state, { storage: 'disk', automaticEnabled: false, dailyEnabled: true, weeklyEnabled: true, monthlyEnabled: true });
});

t.test('a save is recorded with its owner; the first save of the defaults too, once', async (t) => {
  // `changed`: whether the stream has a recorded save (the handler passes its revision >= 0).
  spec.given().when('change', false, daily, owner).then(t, [{ type: 'BackupSettingsChanged', data: { ...owner, ...daily } }]);
  spec.given().when('change', false, DEFAULT_BACKUP_SETTINGS, owner).then(t, [{ type: 'BackupSettingsChanged', data: { ...owner, ...DEFAULT_BACKUP_SETTINGS } }], 'an explicit save of the defaults is recorded');
  const saved = spec.given({ type: 'BackupSettingsChanged', data: { ...owner, ...DEFAULT_BACKUP_SETTINGS } });
  saved.when('change', true, DEFAULT_BACKUP_SETTINGS, owner).then(t, [], 'saving what is saved records nothing');
});

t.test('a change replaces the settings whole; saving them again records nothing', async (t) => {
  const changed = spec.given().when('change', false, daily, owner).given();
  t.same(changed.state, daily, 'the owner is not part of the settings');
  changed.when('change', true, { ...daily }, owner).then(t, [], 'the same settings (another object): nothing');
  changed.when('change', true, { ...daily, storage: 'remote' }, owner).then(t, [{ type: 'BackupSettingsChanged', data: { ...owner, ...daily, storage: 'remote' } }]);
  t.same(changed.when('change', true, DEFAULT_BACKUP_SETTINGS, owner).state, DEFAULT_BACKUP_SETTINGS, 'back to the defaults');
});
