import { z } from 'zod';

/**
 * A service's resource limits as the user wrote them (`512m`, `0.5`), the form events keep. A key that is
 * absent takes the installation's `defaultResources`; `null` means "no limit" even when a default exists.
 */
export const resourceSettings = z.object({
  memory: z.string().nullable().optional(),
  memoryReservation: z.string().nullable().optional(),
  cpus: z.string().nullable().optional(),
  pids: z.number().int().nullable().optional(),
});
export type ResourceSettings = z.infer<typeof resourceSettings>;

/** The limits in force for a service once the defaults are applied; null: no limit. */
export interface EffectiveResources {
  memory: string | null;
  memoryReservation: string | null;
  cpus: string | null;
  pids: number | null;
}

export const RESOURCE_KEYS = ['memory', 'memoryReservation', 'cpus', 'pids'] as const;

/** Docker refuses a memory limit below 6 MiB. */
export const MIN_MEMORY_BYTES = 6 * 1024 * 1024;
/** Docker's `--cpus` has a granularity of 0.01. */
export const MIN_CPUS = 0.01;
export const PIDS_RANGE = [16, 65536] as const;

const MEMORY = /^(\d+(?:\.\d+)?)([kmg])?b?$/;
const MULTIPLIER = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 } as const;

/** `512m` / `1.5G` / `268435456` (bytes) → the canonical text (lower case, no spaces), or null when it is not a size. */
export function normaliseMemory(input: string | number): string | null {
  const text = String(input).trim().toLowerCase().replace(/\s+/g, '');
  const match = MEMORY.exec(text);
  if (!match) return null;
  const [, amount, unit = ''] = match;
  if (unit === '' && amount!.includes('.')) return null;
  return `${amount}${unit}`;
}

/** Bytes of a memory size in the canonical form (binary units: `1k` = 1024). */
export function memoryBytes(size: string): number {
  const match = MEMORY.exec(size.trim().toLowerCase());
  if (!match) throw new RangeError(`not a memory size: ${size}`);
  const [, amount, unit = ''] = match;
  return Math.floor(Number(amount) * MULTIPLIER[unit as keyof typeof MULTIPLIER]);
}

/** `0.5` / `"2"` → the canonical text, or null when it is not a positive decimal. */
export function normaliseCpus(input: string | number): string | null {
  const text = String(input).trim();
  if (!/^\d+(\.\d+)?$|^\.\d+$/.test(text)) return null;
  return String(Number(text));
}

/** Docker's NanoCpus of a CPU count in the canonical form. */
export const nanoCpus = (cpus: string) => Math.round(Number(cpus) * 1e9);

/** Per key: the service's own value when it has one (null included), else the installation's default, else no limit. */
export function effectiveResources(own: ResourceSettings | null | undefined, defaults: ResourceSettings | null | undefined): EffectiveResources {
  const pick = <K extends (typeof RESOURCE_KEYS)[number]>(key: K) =>
    (own && own[key] !== undefined ? own[key] : defaults?.[key]) ?? null;
  const memory = pick('memory');
  let memoryReservation = pick('memoryReservation');
  // Own and default values can combine into a reservation above the limit, which the engine refuses.
  if (memory !== null && memoryReservation !== null && memoryBytes(memoryReservation) > memoryBytes(memory)) memoryReservation = memory;
  return { memory, memoryReservation, cpus: pick('cpus'), pids: pick('pids') };
}

/** What the engine is given: bytes, fractional CPUs and a task count; absent fields set no limit. */
export interface ResourceLimitValues {
  memoryBytes?: number;
  memoryReservationBytes?: number;
  cpus?: number;
  pids?: number;
}

export function limitValues(effective: EffectiveResources): ResourceLimitValues {
  return {
    ...(effective.memory !== null ? { memoryBytes: memoryBytes(effective.memory) } : {}),
    ...(effective.memoryReservation !== null ? { memoryReservationBytes: memoryBytes(effective.memoryReservation) } : {}),
    ...(effective.cpus !== null ? { cpus: Number(effective.cpus) } : {}),
    ...(effective.pids !== null ? { pids: effective.pids } : {}),
  };
}

/** The words a deployment reason or a health detail uses for a container the engine killed for memory. */
export const outOfMemory = (memory: string | null) => (memory === null ? 'out of memory' : `out of memory (limit ${memory})`);

/** How a container ended: killed for memory (with its limit) or its exit code. */
export function exitDescription(state: { exitCode: number | null; oomKilled?: boolean }, memory: string | null): string {
  if (state.oomKilled) return `was killed: ${outOfMemory(memory)}`;
  return `exited with code ${state.exitCode ?? 'unknown'}`;
}
