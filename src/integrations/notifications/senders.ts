import type { NotificationPayload } from '../../../commands/notification/events.js';
import type { OpenedChannel } from '../../../commands/notification-channel/handlers.js';
import type { DestinationPolicy } from '../../outbound/destination-policy.js';
import { ForbiddenDestinationError } from '../../outbound/forbidden-destination.js';
import { outboundFetch } from '../../outbound/checked-connections.js';
import { outsideAnswerText, shortLine } from '../../outbound/outside-answers.js';
import { discordMessage, emailMessage, slackMessage } from './messages.js';
import { slipwaySignature } from './signature.js';
import { smtpFailure, smtpTransport } from '../mail/transport.js';

/** How one attempt went. `permanent`: trying again cannot help (a 4xx, a refused destination, a 5xx SMTP reply). */
export type SendResult = { ok: true; status: number | null } | { ok: false; status: number | null; error: string; permanent: boolean };

const TIMEOUT_MS = 15_000;
const shown = (text: string) => shortLine(text) ?? 'no readable message';

async function post(policy: DestinationPolicy, url: string, body: string, headers: Record<string, string>): Promise<SendResult> {
  const answer = await outboundFetch(policy, url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': 'Slipway-Notifications', ...headers },
    body,
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  if (answer.status >= 200 && answer.status < 300) return { ok: true, status: answer.status };
  const permanent = answer.status >= 400 && answer.status < 500 && answer.status !== 408 && answer.status !== 429;
  return { ok: false, status: answer.status, error: `the receiver answered ${outsideAnswerText(answer.status, answer.text)}`, permanent };
}

async function sendEmail(policy: DestinationPolicy, channel: OpenedChannel, payload: NotificationPayload): Promise<SendResult> {
  const { host, port, secure, requireTLS, user, from, to } = channel.config as { host: string; port: number; secure: boolean; requireTLS?: boolean; user: string; from: string; to: string[] };
  const password = String(channel.secrets.password ?? '');
  const transport = await smtpTransport(policy, { host, port, secure, requireTLS: requireTLS === true, user, password }, TIMEOUT_MS);
  try {
    const message = emailMessage(payload);
    await transport.sendMail({ from, to, ...message, headers: { 'X-Slipway-Delivery': payload.id } });
    return { ok: true, status: null };
  } catch (error) {
    const { status, message } = smtpFailure(error);
    return { ok: false, status, error: `the mail server refused it: ${message}`, permanent: status !== null && status >= 500 };
  } finally {
    transport.close();
  }
}

/** One attempt to deliver `payload` to `channel`; never throws for what the receiver or the network does. */
export async function sendNotification(policy: DestinationPolicy, channel: OpenedChannel, payload: NotificationPayload, now = new Date()): Promise<SendResult> {
  try {
    switch (channel.type) {
      case 'webhook': {
        const body = JSON.stringify(payload);
        const headers: Record<string, string> = { 'x-slipway-delivery': payload.id, 'x-slipway-event': payload.event };
        if (typeof channel.secrets.secret === 'string') headers['x-slipway-signature'] = slipwaySignature(channel.secrets.secret, body, now);
        return await post(policy, String(channel.secrets.url), body, headers);
      }
      case 'slack':
        return await post(policy, String(channel.secrets.webhookUrl), JSON.stringify(slackMessage(payload)), {});
      case 'discord':
        return await post(policy, String(channel.secrets.webhookUrl), JSON.stringify(discordMessage(payload)), {});
      case 'email':
        return await sendEmail(policy, channel, payload);
    }
  } catch (error) {
    if (error instanceof ForbiddenDestinationError) return { ok: false, status: null, error: error.message, permanent: true };
    const cause = (error as { cause?: { message?: string; code?: string } }).cause;
    const why = cause?.code ?? cause?.message ?? (error as Error).message;
    return { ok: false, status: null, error: `could not reach the receiver: ${shown(String(why))}`, permanent: false };
  }
}
