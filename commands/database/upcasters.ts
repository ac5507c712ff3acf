import { z } from 'zod';
import { redactStatement } from './statement-redaction.js';

const databaseQueryRunV1 = z.looseObject({ statement: z.string() });

// DatabaseQueryRun v1 held the statement in clear; v2 holds it sealed and shows auditors a masked copy.
export function databaseQueryRunV1toV2(data: Record<string, unknown>): Record<string, unknown> {
  const { statement, ...rest } = databaseQueryRunV1.parse(data);
  return { ...rest, statement: redactStatement(typeof rest.engine === 'string' ? rest.engine : '', statement), sealedStatement: null };
}
