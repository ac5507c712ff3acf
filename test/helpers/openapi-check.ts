import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { ENDPOINTS } from '../../src/http/contract/all.js';
import { buildOpenApiDocument } from '../../src/http/openapi/document.js';

/**
 * Every answer a test gets is held against the OpenAPI document the server publishes: its status must be one
 * the document lists for that path and method, and a JSON body must match that status's schema. An answer
 * that drifts from the document throws, so the test that received it fails.
 */
type Json = Record<string, unknown>;
interface Operation {
  responses: Record<string, Json>;
}

const document = buildOpenApiDocument(ENDPOINTS, 'test') as unknown as { paths: Record<string, Record<string, Operation>>; components: Json & { responses: Record<string, Json> } };
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
const validators = new Map<string, ValidateFunction>();

const templates = Object.keys(document.paths).map((template) => ({
  template,
  pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
  literals: template.split('/').filter((s) => s && !s.startsWith('{')).length,
}));

/** The document's path template for a request path: the match with the most literal segments. */
export function documentedPath(path: string): string | null {
  const bare = path.split('?')[0]!;
  const matches = templates.filter((t) => t.pattern.test(bare)).sort((a, b) => b.literals - a.literals);
  return matches[0]?.template ?? null;
}

function resolve(response: Json): Json {
  const ref = response.$ref;
  return typeof ref === 'string' ? document.components.responses[ref.split('/').at(-1)!]! : response;
}

function validator(key: string, schema: Json): ValidateFunction {
  let validate = validators.get(key);
  if (!validate) {
    // The schema's $refs point into the document's components: compile it with them beside it.
    validate = ajv.compile({ ...schema, components: { schemas: document.components.schemas } });
    validators.set(key, validate);
  }
  return validate;
}

export class DriftError extends Error {
  override name = 'DriftError';
}

export function checkAnswer(method: string, path: string, status: number, contentType: string | null, body: unknown) {
  const template = documentedPath(path);
  const operation = template ? document.paths[template]?.[method.toLowerCase()] : undefined;
  // A path or method the server does not have: the 404/405 answers are not any endpoint's.
  if (!template || !operation) return;
  const response = operation.responses[String(status)] ?? operation.responses[`${Math.floor(status / 100)}XX`];
  const where = `${method.toUpperCase()} ${template}`;
  if (!response) {
    throw new DriftError(`${where} answered ${status}, a status the OpenAPI document does not list (it lists ${Object.keys(operation.responses).join(', ')}): ${JSON.stringify(body).slice(0, 300)}`);
  }
  if (!contentType?.startsWith('application/json')) return;
  const schema = (resolve(response).content as Record<string, { schema?: Json }> | undefined)?.['application/json']?.schema;
  if (!schema) return;
  const validate = validator(`${where} ${status}`, schema);
  if (!validate(body)) {
    const problems = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '(body)'} ${e.message}${e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''}`);
    throw new DriftError(`${where} ${status}: the answer does not match the OpenAPI document: ${problems.join('; ')}; body: ${JSON.stringify(body).slice(0, 500)}`);
  }
}
