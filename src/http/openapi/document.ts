import type { z } from 'zod';
import { errorBody } from '../contract/common.js';
import { pathParams, type Endpoint } from '../contract/endpoint.js';
import { SchemaComponents, type JsonSchema } from './json-schema.js';

const ERROR_MEANING: Record<number, string> = {
  400: 'The input is invalid (`validation_failed`, also for a body nested deeper than 64 levels), the body is not JSON (`invalid_json`), or the input names a destination the outbound policy refuses (`forbidden_destination`).',
  401: 'No key, or a key that is unknown or revoked; on a hook route, a signature that does not verify (`unauthorized`).',
  403: 'The key may not do this: a read key asking to write, or a key scoped to some projects asking for an installation-wide action; or a write through the session cookie without its `X-CSRF-Token` header (`forbidden`); or a person the installation requires two factors of has not turned them on (`two_factor_setup_required`).',
  404: 'Not found, or in a project the key cannot see (`not_found`).',
  408: 'The body did not arrive in time (`request_timeout`): on a hook route, 10 s without a byte or 30 s in all.',
  409: 'It conflicts with the current state (`conflict`), or a request with the same `Idempotency-Key` is still in progress.',
  413: 'The body is larger than the server accepts (`payload_too_large`).',
  422: 'Understood but refused; also an `Idempotency-Key` reused for a different request (`idempotency_key_reused`).',
  426: 'The request must be a WebSocket upgrade (`upgrade_required`).',
  429: 'A failed attempt from an address past its limit of failed attempts in the last minute (unknown API keys; on a hook route, refused deliveries from the address or to the service) (`rate_limited`): retry after the `Retry-After` header’s seconds. A valid key, session or signature is never answered 429 `rate_limited`; a terminal that would pass the open sessions’ limit is answered 429 `too_many_sessions`.',
  502: 'An outside provider refused or failed.',
  503: 'Not available yet (`unavailable`): retry after the `Retry-After` header’s seconds (a write with the same `Idempotency-Key` and body is then answered as it would have been, never done twice).',
  504: 'An outside provider did not answer in time.',
};

/** What every endpoint of a kind can answer, beyond the statuses it lists itself. */
function errorStatuses(e: Endpoint): number[] {
  const statuses = new Set<number>(e.errors ?? []);
  // A person without the two factors the installation requires is refused (403) everywhere but their set-up.
  if (e.access !== 'public') for (const s of [401, 403, 429]) statuses.add(s);
  if (pathParams(e.path).length > 0) statuses.add(404);
  if (e.query) statuses.add(400);
  // Writes read a JSON body (even an empty one), take an Idempotency-Key and wait for the read model.
  if (e.access === 'write' && !e.rawBody && !e.upgrade) for (const s of [400, 409, 413, 422, 503]) statuses.add(s);
  return [...statuses].sort((a, b) => a - b);
}

const openApiPath = (path: string) => path.replace(/:([A-Za-z]+)/g, '{$1}');

function streamSchema(components: SchemaComponents, events: Record<string, z.ZodType>): JsonSchema {
  return {
    description: 'Server-Sent Events: each event has an `event:` line with one of these names and a `data:` line holding JSON of the shape given.',
    oneOf: Object.entries(events).map(([name, data]) => ({
      title: name,
      type: 'object',
      properties: { event: { const: name }, data: components.convert(data, 'output') },
      required: ['event', 'data'],
    })),
  };
}

function operation(components: SchemaComponents, e: Endpoint) {
  const parameters: JsonSchema[] = pathParams(e.path).map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
  for (const [name, schema] of Object.entries(e.query?.shape ?? {})) {
    const field = schema as z.ZodType;
    parameters.push({ name, in: 'query', required: !field.safeParse(undefined).success, schema: components.convert(field, 'input') });
  }
  for (const [name, schema] of Object.entries(e.headers?.shape ?? {})) {
    const field = schema as z.ZodType;
    parameters.push({ name, in: 'header', required: !field.safeParse(undefined).success, schema: components.convert(field, 'input') });
  }
  const responses: Record<string, JsonSchema> = {};
  if (e.response) responses['200'] = { description: 'OK', content: { 'application/json': { schema: components.convert(e.response, 'output') } } };
  if (e.acceptedResponse) responses['202'] = { description: 'Accepted', content: { 'application/json': { schema: components.convert(e.acceptedResponse, 'output') } } };
  if (e.rawResponse) responses['200'] = { description: e.rawResponse.description, content: { [e.rawResponse.mediaType]: { schema: { type: 'string' } } } };
  if (e.upgrade) responses['101'] = { description: e.upgrade.description, headers: { Upgrade: { schema: { const: e.upgrade.protocol } } } };
  if (e.redirect) responses['302'] = { description: e.redirect, headers: { Location: { schema: { type: 'string' } } } };
  if (e.stream) responses['200'] = { description: 'A stream of Server-Sent Events that stays open.', content: { 'text/event-stream': { schema: streamSchema(components, e.stream) } } };
  for (const status of errorStatuses(e)) responses[String(status)] = { $ref: `#/components/responses/Error${status}` };
  responses['5XX'] = { $ref: '#/components/responses/ServerFault' };
  const access = e.access === 'public' ? 'No key needed.' : e.access === 'write' ? 'Needs a write key.' : 'Any key (read or write).';
  const scope = e.allProjects ? ' A key scoped to some projects is refused.' : '';
  return {
    operationId: e.operationId,
    tags: [e.tag],
    summary: e.summary,
    description: [e.description, `${access}${scope}`].filter(Boolean).join('\n\n'),
    ...(e.access === 'public' ? { security: [] } : e.auth === 'basic' ? { security: [{ basicKey: [] }] } : {}),
    'x-slipway-access': e.access,
    ...(parameters.length ? { parameters } : {}),
    ...(e.body ? { requestBody: { required: true, content: { 'application/json': { schema: components.convert(e.body, 'input') } } } } : {}),
    ...(e.rawBody ? { requestBody: { required: true, description: e.rawBody.description, content: { [e.rawBody.mediaType]: { schema: { type: 'string' } } } } } : {}),
    responses,
  };
}

/** The OpenAPI 3.1 document of these endpoints. */
export function buildOpenApiDocument(endpoints: readonly Endpoint[], version: string) {
  const components = new SchemaComponents();
  const paths: Record<string, Record<string, unknown>> = {};
  for (const e of endpoints) (paths[openApiPath(e.path)] ??= {})[e.method] = operation(components, e);
  const errorRef = components.convert(errorBody, 'output');
  const statuses = [...new Set(endpoints.flatMap(errorStatuses))].sort((a, b) => a - b);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Slipway management API',
      version,
      description: 'Projects, services, variables, domains, deployments, databases, DNS and settings of a Slipway installation. Every error answers the same body (`Error`).',
    },
    tags: [...new Set(endpoints.map((e) => e.tag))].map((name) => ({ name })),
    security: [{ bearerKey: [] }, { sessionCookie: [] }],
    paths,
    components: {
      securitySchemes: {
        bearerKey: { type: 'http', scheme: 'bearer', description: 'An API key: `Authorization: Bearer slw_…`. Read keys can only read.' },
        sessionCookie: {
          type: 'apiKey',
          in: 'cookie',
          name: '__Host-slipway_session',
          description: 'The dashboard’s session (`POST /api/sessions`): it stands for the key it was opened with. A write through it also needs the session’s `X-CSRF-Token` header.',
        },
        basicKey: { type: 'http', scheme: 'basic', description: 'The Git remote: an API key as the password (any user name).' },
      },
      responses: {
        ...Object.fromEntries(statuses.map((s) => [`Error${s}`, { description: ERROR_MEANING[s] ?? 'Error.', content: { 'application/json': { schema: errorRef } } }])),
        ServerFault: {
          description: 'A fault of the server, never of the request (`internal_error`, 500). Retry a write with the same `Idempotency-Key` and body: it runs again with the same ids, finds what the failed attempt recorded, and records nothing twice.',
          content: { 'application/json': { schema: errorRef } },
        },
      },
      schemas: components.schemas,
    },
  };
}
export type OpenApiDocument = ReturnType<typeof buildOpenApiDocument>;
