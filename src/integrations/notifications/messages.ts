import type { NotificationPayload } from '../../../commands/notification/events.js';

const TITLES: Record<NotificationPayload['event'], string> = {
  'deployment.failed': 'Deployment failed',
  'deployment.succeeded': 'Deployment succeeded',
  'deployment.rolled_back': 'Deployment rolled back',
  'service.unhealthy': 'Service unhealthy',
  'service.recovered': 'Service recovered',
  'backup.failed': 'Backup failed',
  'backup.succeeded': 'Backup succeeded',
  'certificate.failed': 'Certificate failed',
  'certificate.expiring': 'Certificate expiring',
  'webhook.rejected': 'Webhook rejected',
  'node.down': 'Node down',
  'job.failed': 'Job failed',
};

/** One line: what happened, to what, and why. */
export function summaryOf(p: NotificationPayload): string {
  const where = [p.project?.name, p.service?.name].filter(Boolean).join(' / ');
  return `${TITLES[p.event]}${where ? `: ${where}` : ''}${p.reason ? ` — ${p.reason}` : ''}`;
}

const linkLines = (p: NotificationPayload) => Object.entries(p.links).map(([name, url]) => `${name}: ${url}`);

/** Slack's incoming webhooks: `text` with its own link syntax. */
export function slackMessage(p: NotificationPayload) {
  const links = Object.entries(p.links).map(([name, url]) => `<${url}|${name}>`);
  return { text: [summaryOf(p), links.join(' · ')].filter(Boolean).join('\n') };
}

/** Discord's webhooks: `content` (2000 characters at most), Markdown links. */
export function discordMessage(p: NotificationPayload) {
  const links = Object.entries(p.links).map(([name, url]) => `[${name}](<${url}>)`);
  return { content: [summaryOf(p), links.join(' · ')].filter(Boolean).join('\n').slice(0, 2000), allowed_mentions: { parse: [] } };
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function emailMessage(p: NotificationPayload) {
  const summary = summaryOf(p);
  const text = [summary, '', ...linkLines(p), '', `Notification ${p.id} at ${p.occurredAt}`].join('\n');
  const links = Object.entries(p.links)
    .map(([name, url]) => `<li><a href="${escapeHtml(url)}">${escapeHtml(name)}</a></li>`)
    .join('');
  const html = `<p>${escapeHtml(summary)}</p>${links ? `<ul>${links}</ul>` : ''}<p style="color:#666">Notification ${escapeHtml(p.id)} at ${escapeHtml(p.occurredAt)}</p>`;
  return { subject: `[Slipway] ${summary}`.slice(0, 200), text, html };
}
