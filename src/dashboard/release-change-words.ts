import type { components } from '../shared/api-types.js';

type Changes = components['schemas']['ReleaseChanges'];

/** What a release changed, in one line: `image · +API_KEY −OLD · changed: DATABASE_URL · settings: startCommand`. */
export function releaseChangeWords(changes: Changes | null): string {
  if (changes === null) return 'first release';
  const parts: string[] = [];
  if (changes.image) parts.push('image');
  const v = changes.variables;
  if (v === null) parts.push('variables unknown');
  else {
    const moved = [...v.added.map((k) => `+${k}`), ...v.removed.map((k) => `−${k}`)].join(' ');
    if (moved) parts.push(moved);
    if (v.changed.length > 0) parts.push(`changed: ${v.changed.join(', ')}`);
  }
  if (changes.settings.length > 0) parts.push(`settings: ${changes.settings.join(', ')}`);
  return parts.length > 0 ? parts.join(' · ') : 'no change';
}
