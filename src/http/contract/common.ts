import { z } from 'zod';

/** Shapes many answers share. */
export const id = z.guid();
export const timestamp = z.iso.datetime();
export const nullableTimestamp = timestamp.nullable();

export const errorBody = z
  .object({
    error: z.object({
      code: z.string().meta({ description: 'A stable machine-readable code, such as validation_failed or not_found.' }),
      message: z.string(),
      details: z.array(z.object({ path: z.string(), message: z.string() })),
    }),
  })
  .meta({ id: 'Error', description: 'The one error body of every endpoint.' });

export const okBody = z.object({ ok: z.literal(true) });

export const proxyResult = z
  .object({ ok: z.boolean(), detail: z.string() })
  .meta({ id: 'ProxyResult', description: 'What the reverse proxy said when it was given the new routes.' });

export const okWithProxy = z.object({ ok: z.literal(true), proxy: proxyResult });
