import { useSignal } from '@preact/signals';
import { api, type GetAnswer } from '../api.js';
import { fieldsByPath, focusFirstInvalid, formErrors, NO_ERRORS } from '../form-errors.js';
import { canWrite } from '../session.js';
import { ErrorNote } from './error-note.js';
import { DangerButton } from './danger-button.js';
import { FieldError, invalidProps } from './field-error.js';
import { TableHead } from './table-head.js';
import { confirmDialog } from './ui/dialog.js';

type Domain = GetAnswer<'/api/services/{serviceId}/overview'>['domains'][number];

const fieldOf = fieldsByPath({ hostname: 'hostname' });

/** A service's domains with their DNS record and certificate state. */
export function Domains({ serviceId, domains, changed }: { serviceId: string; domains: Domain[]; changed: () => Promise<void> }) {
  const hostname = useSignal('');
  const errors = useSignal(NO_ERRORS);
  const add = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const { error: failed } = await api.POST('/api/services/{serviceId}/domains', { params: { path: { serviceId } }, body: { hostname: hostname.value.trim() } });
    if (failed) {
      errors.value = formErrors(failed, fieldOf);
      return focusFirstInvalid(form);
    }
    errors.value = NO_ERRORS;
    hostname.value = '';
    await changed();
  };
  const remove = async (domain: Domain) => {
    const confirmed = await confirmDialog({
      title: `Remove the domain ${domain.hostname}?`,
      body: `Requests for ${domain.hostname} stop reaching this service.`,
      confirmLabel: 'Remove domain',
      danger: true,
    });
    if (!confirmed) return;
    const { error: failed } = await api.DELETE('/api/services/{serviceId}/domains/{domainId}', { params: { path: { serviceId, domainId: domain.id } } });
    errors.value = failed ? formErrors(failed, () => null) : NO_ERRORS;
    await changed();
  };
  return (
    <section aria-labelledby="domains">
      <h2 id="domains">Domains</h2>
      <ErrorNote message={errors.value.general} />
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
          <input
            id="new-domain"
            required
            placeholder="shop.example.com"
            value={hostname.value}
            onInput={(e) => (hostname.value = e.currentTarget.value)}
            {...invalidProps('new-domain', errors.value.fields.hostname)}
          />
          <FieldError id="new-domain" message={errors.value.fields.hostname} />
          <button type="submit">Add</button>
        </form>
      )}
    </section>
  );
}
