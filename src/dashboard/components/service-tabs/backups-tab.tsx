import { Backups } from '../backups.js';
import { Imports, type ImportSource } from '../imports.js';

const IMPORTS: Record<string, ImportSource> = { postgres: 'postgres-url', timeseries: 'postgres-url', redis: 'redis-url' };

/** A database's backups, its schedule, and imports from another database where its engine has them. */
export function BackupsTab({ serviceId, serviceName, engine }: { serviceId: string; serviceName: string; engine: string }) {
  const source = IMPORTS[engine];
  return (
    <>
      <Backups serviceId={serviceId} serviceName={serviceName} />
      {source && <Imports serviceId={serviceId} source={source} />}
    </>
  );
}
