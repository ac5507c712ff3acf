import { z } from 'zod';
import { releaseChanges, type ReleaseChanges, type ReleaseSnapshot } from '../../commands/release/changes.js';
import type { ReleaseConfig } from '../../commands/release/events.js';
import { loadReleases } from '../../commands/release/handlers.js';
import type { CommandContext } from '../../commands/shared/command-context.js';
import type { Keyring } from '../secrets/keyring.js';

const variables = z.record(z.string(), z.string());

/** A release's variables, opened from the log; null when they can no longer be (the data key is gone). */
async function openedEnv(keyring: Keyring, sealed: string): Promise<Record<string, string> | null> {
  const opened = await keyring.decrypt(sealed).catch(() => null);
  if (opened === null) return null;
  const parsed = variables.safeParse(JSON.parse(opened));
  return parsed.success ? parsed.data : null;
}

const settingsOf = ({ env: _sealed, ...settings }: ReleaseConfig) => settings;

/**
 * Each release's changes against the one before, by release id. The variables are opened here, on the server,
 * and only their names leave it.
 */
export async function changesByRelease(cmd: CommandContext, keyring: Keyring, serviceId: string): Promise<Map<string, ReleaseChanges | null>> {
  const { releases } = await loadReleases(cmd, serviceId);
  const snapshots: ReleaseSnapshot[] = await Promise.all(
    releases.map(async (r) => ({ imageId: r.imageId, env: await openedEnv(keyring, r.config.env), settings: settingsOf(r.config) })),
  );
  return new Map(releases.map((r, i) => [r.releaseId, releaseChanges(snapshots[i - 1], snapshots[i]!)]));
}
