const REFERENCE = /\$\{([^{}]+?)\.([A-Z_][A-Z0-9_]*)\}/g;
const MAX_DEPTH = 8;

/** Looks up `<service>.<KEY>` inside one project: service by name or slug. */
export type VariableLookup = (service: string, key: string) => string | undefined;

/** Replaces `${service.KEY}` references, recursively; an unknown reference stays as written. */
export function resolveReferences(value: string, lookup: VariableLookup, depth = 0): string {
  if (depth >= MAX_DEPTH) return value;
  return value.replace(REFERENCE, (whole, service: string, key: string) => {
    const found = lookup(service.trim(), key);
    return found === undefined ? whole : resolveReferences(found, lookup, depth + 1);
  });
}

export function referenceTo(service: string, key: string): string {
  return `\${${service}.${key}}`;
}

/** The `${service.KEY}` references a value holds, in order: the service as written (trimmed) and the key. */
export function referencesIn(value: string): { service: string; key: string }[] {
  return [...value.matchAll(REFERENCE)].map((m) => ({ service: m[1]!.trim(), key: m[2]! }));
}

/** A project's services by the names a reference may use: each one's slug and its name. */
export function servicesByReferenceName<S extends { name: string; slug: string }>(services: readonly S[]): Map<string, S> {
  const byName = new Map<string, S>();
  for (const s of services) byName.set(s.slug, s).set(s.name, s);
  return byName;
}

/** References still left in a value after resolving it: each names a service or variable that does not exist. */
export function unresolvedReferences(value: string): string[] {
  return [...value.matchAll(REFERENCE)].map((m) => m[0]);
}
