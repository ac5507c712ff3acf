import { z } from 'zod';

export type JsonSchema = Record<string, unknown>;

/**
 * JSON Schemas for the document's components: each zod schema is converted on its own, and the schemas it
 * names with `.meta({ id })` are hoisted into `components.schemas` so the document names Project, Service…
 * once. A request's named schema that differs from the answer's (defaults, transforms) gets an `Input` id.
 */
export class SchemaComponents {
  readonly schemas: Record<string, JsonSchema> = {};

  convert(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
    const json = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as JsonSchema;
    const { $defs, $schema: _schema, ...root } = json as JsonSchema & { $defs?: Record<string, JsonSchema> };
    const defs = Object.entries($defs ?? {});
    // Names first (a def refers to others), then the defs with their references pointing at those names.
    const same = new Map(defs.map(([id]) => [id, id]));
    const renamed = new Map(defs.map(([id, def]) => [id, this.nameFor(id, rewriteRefs(def, same), io)]));
    for (const [id, def] of defs) this.schemas[renamed.get(id)!] = rewriteRefs(def, renamed);
    return rewriteRefs(root, renamed);
  }

  private nameFor(id: string, def: JsonSchema, io: 'input' | 'output'): string {
    const existing = this.schemas[id];
    if (!existing || JSON.stringify(existing) === JSON.stringify(def)) return id;
    return io === 'input' ? `${id}Input` : `${id}Output`;
  }
}

function rewriteRefs(value: JsonSchema, renamed: Map<string, string>): JsonSchema {
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (v === null || typeof v !== 'object') return v;
    return Object.fromEntries(
      Object.entries(v).map(([k, item]) => {
        if (k === '$ref' && typeof item === 'string' && item.startsWith('#/$defs/')) {
          const id = item.slice('#/$defs/'.length);
          return [k, `#/components/schemas/${renamed.get(id) ?? id}`];
        }
        return [k, walk(item)];
      }),
    );
  };
  return walk(value) as JsonSchema;
}
