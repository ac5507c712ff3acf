import type { TestServer } from './test-server.js';

/** The backup once it has ended (two minutes at most). */
export async function finishedBackup(s: TestServer, serviceId: string, backupId: string): Promise<Record<string, any>> {
  for (let i = 0; i < 600; i++) {
    const found = ((await s.call('GET', `/api/services/${serviceId}/database/backups`)).body.backups as Record<string, any>[]).find((b) => b.id === backupId);
    if (found && found.status !== 'running') return found;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`backup ${backupId} did not end`);
}
