import { createHash, randomUUID } from 'node:crypto';
import type { CommandContext } from './command-context.js';

/** A UUID laid out like a version 5 one, from the SHA-1 of `name`: the same name always gives the same id. */
export function uuidFromName(name: string): string {
  const hash = createHash('sha1').update(name).digest().subarray(0, 16);
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The how-manieth use of `name` in this context (1-based). A retry walks the same path, so it counts the same. */
function count(ctx: CommandContext, name: string): number {
  const counters = (ctx.counters ??= new Map<string, number>());
  const n = (counters.get(name) ?? 0) + 1;
  counters.set(name, n);
  return n;
}

/**
 * The id of a new aggregate (project, service, env variable, …). With an idempotency key, the retry of a
 * request mints the same ids as its first attempt, so it finds what that attempt created.
 */
export function newId(ctx: CommandContext, label: string): string {
  if (!ctx.idempotencyKey) return randomUUID();
  return uuidFromName(`${ctx.idempotencyKey}|id:${label}|${count(ctx, `id:${label}`)}`);
}

/**
 * The ids of the events of the next append to `streamId` in this context, by index; null without an
 * idempotency key (ids are then random).
 */
export function appendEventIds(ctx: CommandContext, streamId: string): ((index: number) => string) | null {
  const key = ctx.idempotencyKey;
  if (!key) return null;
  const n = count(ctx, `append:${streamId}`);
  return (index) => uuidFromName(`${key}|${streamId}|${n}|${index}`);
}
