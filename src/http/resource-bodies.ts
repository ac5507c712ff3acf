import { availableParallelism } from 'node:os';
import { z } from 'zod';
import {
  MIN_CPUS,
  MIN_MEMORY_BYTES,
  PIDS_RANGE,
  memoryBytes,
  normaliseCpus,
  normaliseMemory,
  type ResourceSettings,
} from '../../commands/service/resources.js';

/** Containers run on this host: a CPU limit above its count is one the engine refuses. */
const HOST_CPUS = availableParallelism();

const SIZE_HINT = 'must be a size such as 512m, 1g or 65536k (k, m, g: binary units), or plain bytes';

const memorySize = z
  .union([z.string().max(32), z.number().int().positive()], { error: SIZE_HINT })
  .meta({ description: 'A size with a binary unit, case-insensitive: `512m`, `1.5g`, `65536k`, or plain bytes.' })
  .transform((value, ctx) => {
    const size = normaliseMemory(value);
    if (size === null) {
      ctx.addIssue({ code: 'custom', message: SIZE_HINT });
      return z.NEVER;
    }
    const bytes = memoryBytes(size);
    if (bytes < MIN_MEMORY_BYTES || bytes > Number.MAX_SAFE_INTEGER) {
      ctx.addIssue({ code: 'custom', message: `must be at least 6m (Docker's smallest limit)${bytes > Number.MAX_SAFE_INTEGER ? ' and a sane size' : ''}` });
      return z.NEVER;
    }
    return size;
  });

const CPU_HINT = `must be a decimal number of CPUs from ${MIN_CPUS} to ${HOST_CPUS} (this host's CPU count)`;

const cpuCount = z
  .union([z.string().max(16), z.number()], { error: CPU_HINT })
  .meta({ description: `CPUs as a decimal, e.g. 0.5 or "1.5"; at least ${MIN_CPUS} and at most the host's CPU count.` })
  .transform((value, ctx) => {
    const cpus = normaliseCpus(value);
    if (cpus === null || Number(cpus) < MIN_CPUS || Number(cpus) > HOST_CPUS) {
      ctx.addIssue({ code: 'custom', message: CPU_HINT });
      return z.NEVER;
    }
    return cpus;
  });

const PIDS_HINT = `must be a whole number of tasks from ${PIDS_RANGE[0]} to ${PIDS_RANGE[1]}`;

/**
 * A service's `resources` (or the installation's `defaultResources`): a key left out takes the default, `null`
 * sets no limit. Every key is written in the human form it is stored in.
 */
export const resourcesBody = z
  .object({
    memory: memorySize.nullable().optional().meta({ description: 'Memory limit (no swap beyond it); at least 6m.' }),
    memoryReservation: memorySize.nullable().optional().meta({ description: 'Soft limit the engine reclaims down to under memory pressure; not above `memory`.' }),
    cpus: cpuCount.nullable().optional(),
    pids: z.number({ error: PIDS_HINT }).int(PIDS_HINT).min(PIDS_RANGE[0], PIDS_HINT).max(PIDS_RANGE[1], PIDS_HINT).nullable().optional().meta({
      description: `Processes and threads; ${PIDS_RANGE[0]}-${PIDS_RANGE[1]}. The container's own profile caps it too (1024 for apps, 4096 for databases).`,
    }),
  })
  .strict()
  .refine(
    (r) => !r.memory || !r.memoryReservation || memoryBytes(r.memoryReservation) <= memoryBytes(r.memory),
    { message: 'must not be above memory', path: ['memoryReservation'] },
  )
  .transform((r): ResourceSettings => Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined)));

/** The limits in force, as shown next to a container's use. */
export const effectiveResourcesAnswer = z
  .object({
    memory: z.string().nullable(),
    memoryReservation: z.string().nullable(),
    cpus: z.string().nullable(),
    pids: z.number().int().nullable(),
  })
  .meta({ id: 'EffectiveResources', description: 'The service’s own values, else the installation’s `defaultResources`; null: no limit.' });

export const resourcesAnswer = z
  .object({
    memory: z.string().nullable().optional(),
    memoryReservation: z.string().nullable().optional(),
    cpus: z.string().nullable().optional(),
    pids: z.number().int().nullable().optional(),
  })
  .meta({ id: 'Resources', description: 'As set: a key left out takes the installation’s default, null is no limit.' });
