import { useSignal } from '@preact/signals';
import { api, messageOf, type GetAnswer } from '../api.js';
import { canWrite } from '../session.js';
import { ErrorNote } from './error-note.js';
import { DangerButton } from './danger-button.js';
import { TableHead } from './table-head.js';

type Domain = GetAnswer<'/api/services/{serviceId}/overview'>['domains'][number];

/** A service's domains with their DNS record and certificate state. */
export function Domains({ serviceId, domains, changed }: { serviceId: string; domains: Domain[]; changed: () => Promise<void> }) {
  const hostname = useSignal('');
  const error = useSignal<string | null>(null);
  const add = async (event: Event) => {
    event.preventDefault();
    const { error: failed } = await api.POST('/api/services/{serviceId}/domains', { params: { path: { serviceId } }, body: { hostname: hostname.value.trim() } });
    error.value = failed ? messageOf(failed) : null;
    if (!failed) hostname.value = '';
    await changed();
  };
  const remove = async (domain: Domain) => {
    if (!window.confirm(`Stop routing ${domain.hostname} to this service?`)) return;
    const { error: failed } = await api.DELETE('/api/services/{serviceId}/domains/{domainId}', { params: { path: { serviceId, domainId: domain.id } } });
    error.value = failed ? messageOf(failed) : null;
    await changed();
  };
  return (
    <section aria-labelledby="domains">
      <h2 id="domains">Domains</h2>
      <ErrorNote message={error.value} />
      <table>
        <TableHead columns={['Hostname', 'DNS record', 'Certificate']} actions />
        <tbody>
          {domains.map((d) => (
            <tr key={d.id}>
              <td>{d.hostname}</td>
              <td>{d.dns ? `${d.dns.recordType ?? '—'} ${d.dns.targetIp ?? ''} via ${d.dns.providerId}` : 'not managed'}</td>
              <td class={`cert cert-${d.certificate.status}`}>
                {d.certificate.status}
                {d.certificate.expiresAt ? `, until ${d.certificate.expiresAt.slice(0, 10)}` : ''}
                {d.certificate.reason ? ` — ${d.certificate.reason}` : ''}
              </td>
              <td>
                {canWrite.value && (
                  <DangerButton label="Remove" what={d.hostname} onClick={() => void remove(d)} />
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {canWrite.value && (
        <form class="inline" onSubmit={add}>
          <label for="new-domain">Add a domain</label>
          <input id="new-domain" required placeholder="shop.example.com" value={hostname.value} onInput={(e) => (hostname.value = e.currentTarget.value)} />
          <button type="submit">Add</button>
        </form>
      )}
    </section>
  );
}
