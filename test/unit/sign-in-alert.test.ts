import t from 'tap';
import { decideChangeMail, decideRemoveMail, type MailSettings } from '../../commands/settings/mail.js';
import { mailSettingsBody, smtpServerOf } from '../../src/integrations/mail/mail-settings.js';
import { ALERT_QUIET_MS, SignInAlerts, extendStreak, startStreak, type OwnerMail } from '../../src/people/sign-in-alert.js';
import { createLogger } from '../../src/logger.js';

/** The owners' mailbox as the alert sees it through its one-method interface (the SMTP path: integration/people-mail.test.ts). */
function mailbox(): OwnerMail & { texts: string[] } {
  const texts: string[] = [];
  return { texts, toOwners: async (m) => (texts.push(m.text), { sent: true }) };
}

const streakOf = (count: number, addresses: string[]) => {
  let streak = startStreak(new Date('2026-01-01T10:00:00Z'));
  for (let i = 0; i < count; i++) streak = extendStreak(streak, addresses[i % addresses.length]!);
  return streak;
};

t.test('an alert at the fifth failure, then at most one an hour per account', async (t) => {
  let now = 0;
  const box = mailbox();
  const alerts = new SignInAlerts(box, createLogger(true), () => now);
  alerts.failed('u1', 'a@example.com', streakOf(4, ['10.0.0.1']));
  await alerts.settled();
  t.same(box.texts, [], 'four are not enough');
  alerts.failed('u1', 'a@example.com', streakOf(5, ['10.0.0.1', '10.0.0.2']));
  alerts.failed('u1', 'a@example.com', streakOf(6, ['10.0.0.1']));
  await alerts.settled();
  t.same(box.texts.map((x) => x.split('.\n')[0]), ['5 failed sign-ins for a@example.com from 10.0.0.1, 10.0.0.2 since 2026-01-01T10:00:00.000Z']);
  alerts.failed('u2', 'b@example.com', streakOf(5, ['10.0.0.3']));
  await alerts.settled();
  t.equal(box.texts.length, 2, 'another account has its own hour');
  now += ALERT_QUIET_MS - 1;
  alerts.failed('u1', 'a@example.com', streakOf(5, ['10.0.0.1']));
  await alerts.settled();
  t.equal(box.texts.length, 2, 'not within the hour');
  now += 1;
  alerts.failed('u1', 'a@example.com', streakOf(7, ['10.0.0.1']));
  await alerts.settled();
  t.equal(box.texts.length, 3, 'an hour later, again');
});

t.test('a mailer that throws is logged, and the next alert still goes', async (t) => {
  const lines: string[] = [];
  const alerts = new SignInAlerts({ toOwners: async () => Promise.reject(new Error('boom')) }, createLogger(false, (l) => lines.push(l)));
  alerts.failed('u1', 'a@example.com', streakOf(5, ['10.0.0.1']));
  await alerts.settled();
  t.match(JSON.parse(lines[0]!), { level: 'warn', userId: 'u1', reason: 'Error: boom' });
  t.notOk(lines[0]!.includes('a@example.com'), 'no e-mail in the log');
});

t.test('a streak names at most ten addresses, each once', async (t) => {
  const streak = streakOf(30, Array.from({ length: 15 }, (_, i) => `10.0.0.${i}`));
  t.equal(streak.count, 30);
  t.equal(streak.addresses.length, 10);
  t.equal(extendStreak(streak, null).addresses.length, 10);
});

t.test('mail settings: a password needs TLS; the TLS modes are the e-mail channel’s secure / requireTLS', async (t) => {
  const base = { host: 'smtp.example.com', port: 587, from: 'slipway@example.com' };
  t.notOk(mailSettingsBody.safeParse({ ...base, tls: 'none', username: 'u', password: 'p' }).success);
  t.notOk(mailSettingsBody.safeParse({ ...base, tls: 'starttls', password: 'p' }).success, 'a password needs its username');
  t.notOk(mailSettingsBody.safeParse({ ...base, tls: 'starttls', extra: 1 }).success, 'no unknown field');
  t.ok(mailSettingsBody.safeParse({ ...base, tls: 'none' }).success, 'no password, no TLS: allowed');
  const settings = (tls: MailSettings['tls']): MailSettings => ({ ...base, tls, username: 'u', password: 'p' });
  t.match(smtpServerOf(settings('implicit')), { secure: true, requireTLS: false, user: 'u', password: 'p' });
  t.match(smtpServerOf(settings('starttls')), { secure: false, requireTLS: true });
  t.match(smtpServerOf(settings('none')), { secure: false, requireTLS: false });
});

t.test('mail settings deciders: recorded as probed; removed only when set', async (t) => {
  const set: MailSettings = { host: 'h', port: 465, tls: 'implicit', username: null, password: null, from: 'a@example.com' };
  t.same(decideChangeMail({ mail: null }, set), [{ type: 'MailSettingsChanged', data: set }]);
  t.same(decideRemoveMail({ mail: set }), [{ type: 'MailSettingsRemoved', data: {} }]);
  t.throws(() => decideRemoveMail({ mail: null }), { code: 'not_found' });
});
