import { engineVariables } from '../../engine-variables.js';
import { DatabaseTls } from '../database-tls.js';
import type { Overview } from './service-view.js';

const POSTGRES = new Set(['postgres', 'timeseries']);

/** How to reach a database: from the project's other services by reference, from outside by its port (and TLS). */
export function ConnectTab({ service, engine }: { service: Overview['service']; engine: string }) {
  const keys = [...(engineVariables(engine)?.keys ?? [])];
  return (
    <>
      <section aria-labelledby="from-services">
        <h2 id="from-services">From the project’s services</h2>
        <p>A service of the same project connects with this database’s variables, by reference:</p>
        <ul class="references">
          {keys.map((key) => (
            <li key={key}>
              <code>{`\${${service.name}.${key}}`}</code>
            </li>
          ))}
        </ul>
      </section>
      <section aria-labelledby="from-outside">
        <h2 id="from-outside">From outside</h2>
        <p>
          {service.databasePublicEnabled ? (
            <>
              Port <code>{service.hostPort}</code> of {service.databasePublicHostname ? <code>{service.databasePublicHostname}</code> : 'this server'} is open to the internet.
            </>
          ) : (
            <>
              Bound to this server only: <code>localhost:{service.hostPort}</code> (an SSH tunnel reaches it).
            </>
          )}
        </p>
      </section>
      {POSTGRES.has(engine) && <DatabaseTls serviceId={service.id} />}
    </>
  );
}
