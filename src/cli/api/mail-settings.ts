import { answer, apiClient } from './client.js';
import { doneReading, readSecret } from './login.js';
import { print, type Output } from './resources.js';

type Tls = 'implicit' | 'starttls' | 'none';

interface MailView {
  host: string;
  port: number;
  tls: Tls;
  username: string | null;
  passwordSet: boolean;
  from: string;
}

const described = (m: MailView) =>
  `${m.host}:${m.port} (tls ${m.tls}${m.username ? `, as ${m.username}${m.passwordSet ? ' with a password' : ''}` : ''}), from ${m.from}`;

export async function showMailSettings(o: Output) {
  const { api } = apiClient();
  const data = await answer(api.GET('/api/settings/mail'));
  print(o.json, data, () => (data.mail ? described(data.mail) : 'no mail server: invitations are only in the answer, sign-in alerts only logged'));
}

/** The password is read from stdin (hidden on a terminal), never from the command line, where `ps` shows it. */
export async function setMailSettings(o: Output & { host: string; port: string; tls: Tls; username?: string; password?: boolean; from: string }) {
  const { api } = apiClient();
  const password = o.password ? await readSecret('SMTP password').finally(doneReading) : undefined;
  const body = { host: o.host, port: Number(o.port), tls: o.tls, from: o.from, ...(o.username ? { username: o.username } : {}), ...(password ? { password } : {}) };
  const data = await answer(api.PUT('/api/settings/mail', { body }));
  print(o.json, data, () => `mail server set: ${described(data.mail)}; invitations are mailed from now on`);
}

export async function removeMailSettings(o: Output) {
  const { api } = apiClient();
  const data = await answer(api.DELETE('/api/settings/mail'));
  print(o.json, data, () => 'mail server removed');
}
