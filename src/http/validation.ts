import { z } from 'zod';
import { DomainError } from '../../commands/shared/domain-error.js';

/** Parses client input or throws a 400 listing every problem. */
export function parseInput<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const details = result.error.issues.map((issue) => ({
    path: issue.path.map(String).join('.') || '(body)',
    message: issue.message,
  }));
  const first = details[0]!;
  throw new DomainError('validation_failed', `${first.path}: ${first.message}`, details);
}

const noControl = (s: string) => !/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(s);

export const text = (max: number) => z.string().max(max).refine(noControl, 'must not contain control characters');
// Names are shown in lists and terminals: line breaks, tabs, bidirectional overrides and other invisible
// format characters (zero-width spaces, soft hyphens) could disguise one name as another.
const plainName = (s: string) => !/[\p{Cc}\p{Cf}\u2028\u2029]/u.test(s);
export const name = (max = 63) =>
  text(max).refine(plainName, 'must not contain line breaks, tabs or invisible format characters (bidirectional overrides, zero-width spaces)').trim().min(1, 'must not be empty');
export const optionalCommand = text(4096)
  .nullable()
  .optional()
  .transform((v) => (v === undefined ? undefined : v === null || v.trim() === '' ? null : v.trim()));

export const envKey = z.string().regex(/^[A-Z_][A-Z0-9_]*$/, 'must match ^[A-Z_][A-Z0-9_]*$').max(255);
export const envValue = z.string().max(65_536);

/** A path inside the repository: relative, no `..`, normalised without `./` and trailing slashes. */
export const repoPath = z
  .string()
  .max(255)
  .transform((p) => p.trim().replace(/^(\.\/)+/, '').replace(/\/+$/, ''))
  .refine((p) => noControl(p) && !p.startsWith('/') && !p.split('/').includes('..') && !p.includes('\\'), {
    message: 'must be a relative path inside the repository without ..',
  });

export const branch = z
  .string()
  .min(1)
  .max(255)
  .refine(
    (b) => !/[\u0000-\u0020~^:?*[\\\u007f]/.test(b) && !b.includes('..') && !b.includes('@{') && !b.startsWith('/') &&
      !b.endsWith('/') && !b.endsWith('.') && !b.endsWith('.lock') && !b.startsWith('-'),
    'must be a valid Git branch name',
  );

export const port = z.number().int().min(1).max(65535);

/** Where a decoded JSON body holds a NUL character, in a value or a key: one detail per place. */
export function nulPaths(value: unknown, path: string[] = []): { path: string; message: string }[] {
  const at = (p: string[]) => p.join('.') || '(body)';
  if (typeof value === 'string') return value.includes('\u0000') ? [{ path: at(path), message: 'must not contain NUL characters' }] : [];
  if (Array.isArray(value)) return value.flatMap((item, i) => nulPaths(item, [...path, String(i)]));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, item]) => [
    ...(key.includes('\u0000') ? [{ path: at([...path, key]), message: 'keys must not contain NUL characters' }] : []),
    ...nulPaths(item, [...path, key]),
  ]);
}

export const imageReference = z
  .string()
  .max(255)
  .regex(
    /^(?:[a-zA-Z0-9.-]+(?::[0-9]+)?\/)?[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*(?::[\w][\w.-]{0,127})?(?:@sha256:[a-f0-9]{64})?$/,
    'must be an image reference such as nginx:1.27 or ghcr.io/owner/app:tag',
  );

/** A command to run in a container: one string (run with `sh -c`) or an argv of at least one word. */
export const commandLine = z
  .union([
    text(8192).refine((s) => s.trim() !== '', 'must not be empty'),
    z.array(text(4096)).min(1, 'must name a program').max(256).refine((argv) => argv.length === 0 || argv[0]!.trim() !== '', 'the program (its first word) must not be empty'),
  ])
  .meta({ description: 'A string runs with `sh -c` (so the image needs a shell); an array runs as argv, without a shell.' });
