import type { CommandContext } from '../shared/command-context.js';
import { execute, loadAggregate } from '../shared/execute.js';
import { settings } from './aggregate.js';
import { SETTINGS_ID } from './events.js';
import type { MailSettings } from './mail.js';

const SETTINGS_KEY = `settings-${SETTINGS_ID}`;

/** `config.password` in clear: it is sealed here, under the settings' data key like every settings secret, before it reaches the log. */
export async function changeMailSettings(ctx: CommandContext, config: MailSettings) {
  const sealed = { ...config, password: config.password === null ? null : await ctx.keyring.encrypt(SETTINGS_KEY, config.password) };
  return execute(ctx, settings, SETTINGS_ID, (s) => settings.decide.changeMail(s, sealed));
}

export const removeMailSettings = (ctx: CommandContext) => execute(ctx, settings, SETTINGS_ID, settings.decide.removeMail);

/** The mail settings with the password opened, or null when there are none (or the key that sealed it was lost). */
export async function openedMailSettings(ctx: CommandContext): Promise<MailSettings | null> {
  const { mail } = (await loadAggregate(ctx, settings, SETTINGS_ID)).state;
  if (!mail || mail.password === null) return mail;
  const password = await ctx.keyring.decrypt(mail.password);
  return password === null ? null : { ...mail, password };
}
