import { z } from 'zod';

// Its own file: service fields (which the dashboard type-checks) take it without the event parsers behind the events.
/** Node labels as Swarm takes them: placement constraints of services (`nodeLabels`) match them. */
export const nodeLabels = z.record(z.string().regex(/^[a-z0-9][a-z0-9._-]{0,62}$/, 'a label name: lowercase letters, digits, dots, dashes, underscores'), z.string().max(256));
