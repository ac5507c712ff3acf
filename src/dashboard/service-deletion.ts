import type { GetAnswer } from './api.js';

type Overview = GetAnswer<'/api/services/{serviceId}/overview'>;

const counted = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
const listed = (items: string[]) => (items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`);

/** The question that deleting a service asks, naming what goes with it (the CLI's `services delete` says the same). */
export function deletionOf({ service, domains, env }: Pick<Overview, 'service' | 'domains' | 'env'>): { title: string; body: string } {
  const database = service.repoUrl === 'database';
  const goes = [
    ...(database ? ['its data', 'its backups'] : []),
    ...(domains.length ? [`its ${counted(domains.length, 'domain', 'domains')}`] : []),
    ...(env.length ? [`its ${counted(env.length, 'variable', 'variables')}`] : []),
  ];
  const title = `Delete service ${service.name}${goes.length === 0 ? '' : goes.length === 1 ? ` and ${goes[0]}` : `, ${listed(goes)}`}?`;
  const body = database
    ? 'Its container stops and its data volume and backups are removed. This cannot be undone.'
    : 'Its container stops, and its releases and domains are removed. This cannot be undone.';
  return { title, body };
}
