import { z } from 'zod';

/** A fully qualified host name, lower-cased and without its trailing dot: settings, domains and the environment use it. */
export const hostname = z
  .string()
  .max(253)
  .transform((h) => h.trim().toLowerCase().replace(/\.$/, ''))
  .refine(
    (h) =>
      /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]([a-z0-9-]{0,61}[a-z0-9])?$/.test(h),
    'must be a fully qualified host name such as app.example.com',
  );
