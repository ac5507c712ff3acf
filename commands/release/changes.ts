import type { ReleaseConfig } from './events.js';

/** A release as far as telling it from another goes: its image, its variables (null: no longer readable) and its settings. */
export interface ReleaseSnapshot {
  imageId: string;
  env: Record<string, string> | null;
  settings: Omit<ReleaseConfig, 'env'>;
}

/** What differs from the release before: names only, never a value. */
export interface ReleaseChanges {
  image: boolean;
  /** Null when the variables of either release can no longer be read (their data key is gone). */
  variables: { added: string[]; removed: string[]; changed: string[] } | null;
  settings: string[];
}

/** null and a missing value mean the same (events written before a field existed lack it); key order does not count. */
const canonical = (value: unknown): unknown => {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== null && v !== undefined);
  return Object.fromEntries(entries.sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, canonical(v)]));
};
const same = (a: unknown, b: unknown) => JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));

const SETTINGS: (keyof ReleaseSnapshot['settings'])[] = ['startCommand', 'internalPort', 'runtimeMode', 'healthCheck', 'resources'];
/** A missing health check is the default one (releases recorded before checks existed), while null is none. */
const settingOf = (settings: ReleaseSnapshot['settings'], field: (typeof SETTINGS)[number]) =>
  field === 'healthCheck' ? (settings.healthCheck ?? (settings.healthCheck === null ? null : 'default')) : settings[field];

function variableChanges(before: Record<string, string>, after: Record<string, string>) {
  const names = (o: Record<string, string>) => Object.keys(o).sort();
  return {
    added: names(after).filter((k) => !(k in before)),
    removed: names(before).filter((k) => !(k in after)),
    changed: names(after).filter((k) => k in before && before[k] !== after[k]),
  };
}

/** How a release differs from the one before it; null for a service's first. */
export function releaseChanges(previous: ReleaseSnapshot | undefined, release: ReleaseSnapshot): ReleaseChanges | null {
  if (!previous) return null;
  return {
    image: previous.imageId !== release.imageId,
    variables: previous.env && release.env ? variableChanges(previous.env, release.env) : null,
    settings: SETTINGS.filter((field) => !same(settingOf(previous.settings, field), settingOf(release.settings, field))),
  };
}
