import { z } from 'zod';

/** Status ranges a check accepts: "200", "200-399", "200,204,300-399". */
export type StatusRanges = readonly (readonly [number, number])[];

const STATUS = /^[1-5][0-9]{2}$/;

/** The ranges `text` names, or null when it is not a status, a range or a comma-separated list of them. */
export function parseExpectStatus(text: string): StatusRanges | null {
  const parts = text.split(',').map((p) => p.trim());
  if (parts.length === 0 || parts.length > 20) return null;
  const ranges: [number, number][] = [];
  for (const part of parts) {
    const [low = '', high = low, ...rest] = part.split('-').map((p) => p.trim());
    if (rest.length > 0 || !STATUS.test(low) || !STATUS.test(high)) return null;
    const range: [number, number] = [Number(low), Number(high)];
    if (range[0] > range[1]) return null;
    ranges.push(range);
  }
  return ranges;
}

export const statusAccepted = (ranges: StatusRanges, status: number) => ranges.some(([low, high]) => status >= low && status <= high);

const timing = {
  /** The container's port; the service's internal port when absent. */
  port: z.number().int().min(1).max(65535).optional(),
  intervalSeconds: z.number().int().min(1).max(3600).default(5),
  timeoutSeconds: z.number().int().min(1).max(60).default(3),
  retries: z.number().int().min(1).max(20).default(3),
  startPeriodSeconds: z.number().int().min(0).max(600).default(0),
};

export const httpCheck = z.strictObject({
  type: z.literal('http'),
  path: z
    .string()
    .max(1024)
    .regex(/^\/[\x21-\x7e]*$/, 'must start with / and hold no spaces or control characters')
    .default('/health'),
  expectStatus: z
    .string()
    .max(200)
    .refine((s) => parseExpectStatus(s) !== null, 'must be a status (200), a range (200-399) or a list of them (200,204)')
    .default('200-399'),
  ...timing,
});

export const tcpCheck = z.strictObject({ type: z.literal('tcp'), ...timing });

export const commandCheck = z.strictObject({
  type: z.literal('command'),
  command: z.array(z.string().min(1).max(4096).refine((a) => !a.includes('\0'), 'must not hold NUL')).min(1).max(64),
  ...timing,
});

export const healthCheck = z.discriminatedUnion('type', [httpCheck, tcpCheck, commandCheck]);
export type HealthCheck = z.infer<typeof healthCheck>;

/**
 * What a service stores: a check, `null` for none, or `"default"` (also when absent, as in services created
 * before checks existed): the check its kind gets, see `effectiveHealthCheck`.
 */
export const storedHealthCheck = z.union([healthCheck, z.null(), z.literal('default')]);
export type StoredHealthCheck = z.infer<typeof storedHealthCheck>;

/** A database's own readiness: the engine answers a query through Slipway's connection. */
export interface EngineCheck {
  type: 'engine';
  intervalSeconds: number;
  timeoutSeconds: number;
  retries: number;
  startPeriodSeconds: number;
}

export type EffectiveHealthCheck = HealthCheck | EngineCheck | null;

const DEFAULT_TIMING = { intervalSeconds: 5, timeoutSeconds: 3, retries: 1, startPeriodSeconds: 0 };

/** What a deploy checked before checks were configurable: anything that answers HTTP below 500 on `/`. */
const WEB_DEFAULT: HealthCheck = { type: 'http', path: '/', expectStatus: '100-499', ...DEFAULT_TIMING };
/** A static site must serve its index on `/`: a 404 there is a site without pages, not a ready one. */
const STATIC_DEFAULT: HealthCheck = { type: 'http', path: '/', expectStatus: '200-399', ...DEFAULT_TIMING };
const ENGINE_DEFAULT: EngineCheck = { type: 'engine', ...DEFAULT_TIMING };

export interface CheckedService {
  kind: string;
  runtimeMode: string;
  healthCheck: StoredHealthCheck | undefined;
}

/** The check in force and whether it is the kind's default. Workers default to none: they must only stay up. */
export function effectiveHealthCheck(s: CheckedService): { check: EffectiveHealthCheck; isDefault: boolean } {
  if (s.healthCheck !== undefined && s.healthCheck !== 'default') return { check: s.healthCheck, isDefault: false };
  if (s.kind === 'database') return { check: ENGINE_DEFAULT, isDefault: true };
  if (s.runtimeMode === 'static') return { check: STATIC_DEFAULT, isDefault: true };
  return { check: s.runtimeMode === 'worker' ? null : WEB_DEFAULT, isDefault: true };
}

/** Why a service of this kind cannot take this check, or null. */
export function refusedHealthCheck(kind: string, check: StoredHealthCheck): string | null {
  if (kind !== 'database' || check === 'default') return null;
  if (check === null || check.type !== 'command') return 'a database service takes a command check (e.g. ["pg_isready"]) or "default" (the engine answers a query)';
  return null;
}

/** How a read model keeps the stored check in a text column: SQL null for the default, else its JSON. */
export const healthCheckColumn = (check: StoredHealthCheck | undefined): string | null =>
  check === undefined || check === 'default' ? null : JSON.stringify(check);

export const fromHealthCheckColumn = (text: string | null): StoredHealthCheck => (text === null ? 'default' : (JSON.parse(text) as StoredHealthCheck));
