import { referencesIn, servicesByReferenceName } from './references.js';

export interface ReferenceEdge {
  /** The service whose variable holds the reference. */
  fromServiceId: string;
  /** That variable. */
  key: string;
  /** The service the reference names. */
  toServiceId: string;
  /** The variable of that service it names. */
  toKey: string;
}

export interface ServiceVariables {
  id: string;
  name: string;
  slug: string;
  variables: readonly { key: string; value: string }[];
}

/**
 * The `${service.KEY}` references between a project's services, each once, in the order of the services and
 * their variables. A reference to a service that does not exist, or to the service itself, is no edge.
 */
export function referenceEdges(services: readonly ServiceVariables[]): ReferenceEdge[] {
  const byName = servicesByReferenceName(services);
  const edges = new Map<string, ReferenceEdge>();
  for (const from of services)
    for (const { key, value } of from.variables)
      for (const reference of referencesIn(value)) {
        const to = byName.get(reference.service);
        if (!to || to.id === from.id) continue;
        const edge = { fromServiceId: from.id, key, toServiceId: to.id, toKey: reference.key };
        edges.set(JSON.stringify(edge), edge);
      }
  return [...edges.values()];
}
