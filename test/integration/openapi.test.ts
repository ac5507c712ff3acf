import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import t from 'tap';
import { createHttpApp, registeredRoutes } from '../../src/http/app.js';
import { ENDPOINTS } from '../../src/http/contract/all.js';
import type { Endpoint } from '../../src/http/contract/endpoint.js';
import { gitApi } from '../../src/http/contract/git.js';
import { buildOpenApiDocument } from '../../src/http/openapi/document.js';
import { GENERATED_TYPES, generateApiTypes } from '../client/generate-types.js';
import { checkAnswer } from '../helpers/openapi-check.js';
import { startTestServer } from '../helpers/test-server.js';

const s = await startTestServer();
t.teardown(() => s.close());

type Operation = { responses: Record<string, unknown>; security?: unknown[]; 'x-slipway-access': string; requestBody?: unknown };
type Document = { openapi: string; paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, unknown> } };

const started = performance.now();
const served = await fetch(`${s.url}/api/openapi.json`);
const firstMs = performance.now() - started;
const text = await served.text();
const document = JSON.parse(text) as Document;

t.test('GET /api/openapi.json needs no key and is the document built from the endpoints', async (t) => {
  t.equal(served.status, 200);
  t.match(served.headers.get('content-type'), /^application\/json/);
  t.same(document, JSON.parse(JSON.stringify(buildOpenApiDocument(ENDPOINTS, JSON.parse(readFileSync('package.json', 'utf8')).version))));
  const again = performance.now();
  await (await fetch(`${s.url}/api/openapi.json`)).text();
  t.comment(`document: ${text.length} bytes, ${Object.keys(document.paths).length} paths, ${Object.keys(document.components.schemas).length} named schemas; first answer ${firstMs.toFixed(1)} ms, then ${(performance.now() - again).toFixed(1)} ms`);
});

t.test('the document is valid OpenAPI 3.1', async (t) => {
  t.equal(document.openapi, '3.1.0');
  const result = await new Validator().validate(document as unknown as Parameters<Validator['validate']>[0]);
  t.same(result.errors ?? [], [], 'no validation errors');
  t.equal(result.valid, true);
});

t.test('every route the server registers is in the document, and nothing else is', async (t) => {
  // The Git remote is middleware ahead of the body parser (git streams its bodies): its routes are probed below.
  const gitRoutes = Object.values(gitApi).map((e) => ({ method: e.method, path: e.path }));
  const routes = [...registeredRoutes(createHttpApp(s.app)), ...gitRoutes].map((r) => `${r.method} ${r.path.replace(/:([A-Za-z]+)/g, '{$1}')}`);
  const documented = Object.entries(document.paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method} ${path}`));
  t.same([...new Set(routes)].sort(), documented.sort());
  t.equal(new Set(routes).size, routes.length, 'no route registered twice');
  t.ok(documented.length >= 60, `${documented.length} operations`);
});

t.test('the Git remote answers on each documented path, asking for Basic auth, and on no other', async (t) => {
  const project = (await s.call('POST', '/api/projects', { body: { name: 'Remote' } })).body.project;
  const service = (await s.call('POST', `/api/projects/${project.id}/services`, { body: { name: 'web', repoFullName: 'acme/web', branch: 'main', internalPort: 8080, env: [] } })).body.service;
  const values: Record<string, string> = { serviceId: service.id, projectSlug: project.slug, serviceSlug: service.slug };
  for (const e of Object.values(gitApi) as Endpoint[]) {
    const path = e.path.replace(/:([A-Za-z]+)/g, (_m, name: string) => values[name]!) + (e.query ? '?service=git-upload-pack' : '');
    const answer = await fetch(`${s.url}${path}`, { method: e.method.toUpperCase() });
    t.equal(answer.status, 401, `${e.method.toUpperCase()} ${e.path}`);
    t.match(answer.headers.get('www-authenticate'), /^Basic /);
    const operation = document.paths[e.path.replace(/:([A-Za-z]+)/g, '{$1}')]![e.method]!;
    t.same(operation.security, [{ basicKey: [] }], 'documented with Basic auth');
  }
  t.equal((await fetch(`${s.url}/git/${service.id}.git/objects/info/packs`)).status, 404, 'the dumb protocol is not served');
});

t.test('each operation states its key, its success answer and its errors', async (t) => {
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const where = `${method.toUpperCase()} ${path}`;
      t.ok(op.responses['200'] ?? op.responses['302'] ?? op.responses['101'], `${where} has a 200 answer (or leads a browser on, or switches to a WebSocket)`);
      if (op['x-slipway-access'] === 'public') t.same(op.security, [], `${where} needs no key`);
      else t.ok(op.responses['401'], `${where} can answer 401`);
      if (op['x-slipway-access'] === 'write') t.ok(op.responses['403'], `${where} answers 403 to a read key`);
      if (path.includes('{')) t.ok(op.responses['404'], `${where} can answer 404`);
    }
  }
  const stream = document.paths['/api/deployments/{deploymentId}/stream']!.get!.responses['200'] as { content: Record<string, { schema: { oneOf: { title: string }[] } }> };
  t.same(stream.content['text/event-stream']!.schema.oneOf.map((e) => e.title).sort(), ['log', 'ping', 'snapshot'], 'the deployment log stream’s events');
  const runtime = document.paths['/api/services/{serviceId}/runtime-logs/stream']!.get!.responses['200'] as typeof stream;
  t.same(runtime.content['text/event-stream']!.schema.oneOf.map((e) => e.title).sort(), ['log', 'snapshot', 'status']);
});

t.test('the checker every test goes through catches drift', async (t) => {
  t.throws(() => checkAnswer('GET', '/api/projects', 200, 'application/json', { projects: [{ id: 'x' }] }), { name: 'DriftError' }, 'a wrong shape');
  t.throws(() => checkAnswer('GET', '/api/projects', 200, 'application/json', { projects: [], extra: 1 }), { name: 'DriftError' }, 'a field the document lacks');
  t.throws(() => checkAnswer('GET', '/api/projects', 418, 'application/json', {}), { name: 'DriftError' }, 'a status the document does not list');
  t.throws(() => checkAnswer('GET', '/api/projects', 401, 'application/json', { message: 'no' }), { name: 'DriftError' }, 'an error without the error body');
  t.throws(() => checkAnswer('GET', '/api/projects', 500, 'application/json', { error: 'boom' }), { name: 'DriftError' }, 'a server fault without the error body');
  t.doesNotThrow(() => checkAnswer('GET', '/api/projects', 500, 'application/json', { error: { code: 'internal_error', message: 'internal error', details: [] } }), 'any endpoint may fail (5XX)');
  t.doesNotThrow(() => checkAnswer('GET', '/api/projects', 200, 'application/json', { projects: [] }));
  t.doesNotThrow(() => checkAnswer('GET', '/api/nothing-here', 404, 'application/json', {}), 'not an endpoint: nothing to check');
});

t.test('the generated client types are those of the current document', async (t) => {
  t.equal(await generateApiTypes(document), readFileSync(GENERATED_TYPES, 'utf8'), 'run `npm run openapi:types` after changing an endpoint');
});
