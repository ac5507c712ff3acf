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
