/**
 * Who started something, in words: a key by its name (the API joins it; "a key 1a2b3c4d" when it cannot),
 * Slipway itself, the CLI; "you" added for the signed-in key.
 */
export function actorWords(actor: string | null, actorName: string | null, myKeyId: string | null, myUserId: string | null = null): string {
  if (actor === null) return '—';
  if (actor.startsWith('system')) return 'Slipway';
  if (actor === 'cli') return 'the CLI';
  if (actor.startsWith('user:')) {
    const named = actorName ?? `a person ${actor.slice('user:'.length, 'user:'.length + 8)}`;
    return actor === `user:${myUserId}` ? `${named} (you)` : named;
  }
  if (!actor.startsWith('key:')) return actor;
  const id = actor.slice('key:'.length);
  const named = actorName ?? `a key ${id.slice(0, 8)}`;
  return id === myKeyId ? `${named} (you)` : named;
}
