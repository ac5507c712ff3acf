import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api, messageOf, type GetAnswer } from '../api.js';
import { ErrorNote } from './error-note.js';

type Tls = GetAnswer<'/api/services/{serviceId}/database/tls'>['tls'];

/** How to reach a Postgres service over verified TLS from outside, with the CA to verify it. */
export function DatabaseTls({ serviceId }: { serviceId: string }) {
  const tls = useSignal<Tls | null>(null);
  const error = useSignal<string | null>(null);
  useEffect(() => {
    void api.GET('/api/services/{serviceId}/database/tls', { params: { path: { serviceId } } }).then(({ data, error: failed }) => {
      error.value = failed ? messageOf(failed) : null;
      tls.value = data?.tls ?? null;
    });
  }, [serviceId]);
  const t = tls.value;
  return (
    <section aria-labelledby="tls">
      <h2 id="tls">TLS</h2>
      <ErrorNote message={error.value} />
      {t && (
        <>
          <p>
            {t.active ? 'The database serves TLS with a certificate Slipway issued.' : 'TLS starts with the next deployment.'} Connect with{' '}
            <code>
              psql "host={t.publicHostname} port={t.publicPort} sslmode=verify-full sslrootcert=slipway-ca.crt"
            </code>
          </p>
          {t.caCertAvailable && (
            <p>
              <a href={`/api/services/${serviceId}/database/tls/ca`} download="slipway-ca.crt">
                Download the CA certificate
              </a>
            </p>
          )}
        </>
      )}
    </section>
  );
}
