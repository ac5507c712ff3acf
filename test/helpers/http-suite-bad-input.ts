import type { Test } from 'tap';
import { assertError, detailPaths, type ErrorCode } from './http-errors.js';
import { rawRequest } from './http-raw.js';
import { createKey, createProject, createService } from './http-resources.js';
import { allEvents } from './http-suite-server.js';
import type { TestServer } from './test-server.js';

interface BadBody {
  label: string;
  raw: string;
  headers?: Record<string, string>;
  status: number;
  code: ErrorCode;
  /** The exact `details` paths, where they do not depend on the endpoint. */
  paths?: string[];
}

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

/** Every body endpoint gets each of these, and must answer exactly this, whatever it expects. */
const BAD_BODIES: BadBody[] = [
  { label: 'malformed JSON', raw: '{"name":', status: 400, code: 'invalid_json', paths: [] },
  { label: 'a form-encoded body (bodies are JSON)', raw: 'name=x&key=A&value=b', headers: FORM, status: 400, code: 'invalid_json', paths: [] },
  { label: 'an array', raw: '[]', status: 400, code: 'validation_failed', paths: ['(body)'] },
  { label: 'a string', raw: '"text"', status: 400, code: 'validation_failed', paths: ['(body)'] },
  { label: 'a number', raw: '42', status: 400, code: 'validation_failed', paths: ['(body)'] },
  { label: 'null', raw: 'null', status: 400, code: 'validation_failed', paths: ['(body)'] },
  {
    label: 'wrong types',
    raw: JSON.stringify({ name: 1, description: false, key: 5, value: [], hostname: {}, targetProjectId: 3, branch: 7, repoFullName: 9, internalPort: 'x', access: 2 }),
    status: 400,
    code: 'validation_failed',
  },
  { label: 'missing fields', raw: '{}', status: 400, code: 'validation_failed' },
  { label: 'an oversized body', raw: JSON.stringify({ name: 'x'.repeat(2_000_000) }), status: 413, code: 'payload_too_large', paths: [] },
  { label: 'a body nested too deep', raw: `${'['.repeat(200_000)}${']'.repeat(200_000)}`, status: 400, code: 'validation_failed', paths: ['(body)'] },
  { label: 'an object nested too deep', raw: `${'{"a":'.repeat(65)}1${'}'.repeat(65)}`, status: 400, code: 'validation_failed', paths: ['(body)'] },
  { label: 'NUL characters', raw: JSON.stringify({ name: 'a\u0000b', key: 'A', value: 'a\u0000' }), status: 400, code: 'validation_failed', paths: ['name', 'value'] },
];

export function badInputTests(t: Test, server: () => TestServer) {
  t.test('bad input: exact status and code, never a 500, never a write', async (t) => {
    const s = server();
    const p = await createProject(s, 'Errors');
    const svc = await createService(s, p.id, { name: 'e', repoFullName: 'acme/e', branch: 'main' });
    t.equal((await s.call('POST', `/api/services/${svc.id}/domains`, { body: { hostname: 'errors.example.com' } })).status, 200);
    const domainId = (await s.call('GET', `/api/services/${svc.id}/overview`)).body.domains[0].id as string;
    const reader = await createKey(s, 'read', null);
    const history = await allEvents(s);
    t.ok(history.length > 0, 'there is a history to compare with');
    const lastPosition = history.at(-1)!.position;

    const bodyEndpoints: [string, string][] = [
      ['POST', '/api/projects'],
      ['PATCH', `/api/projects/${p.id}`],
      ['POST', `/api/projects/${p.id}/services`],
      ['PATCH', `/api/services/${svc.id}`],
      ['POST', `/api/services/${svc.id}/transfer`],
      ['POST', `/api/services/${svc.id}/env`],
      ['POST', `/api/services/${svc.id}/domains`],
      ['PATCH', `/api/services/${svc.id}/domains/${domainId}`],
      ['POST', '/api/keys'],
    ];
    for (const [method, path] of bodyEndpoints) {
      for (const bad of BAD_BODIES) {
        const r = await s.call(method, path, { raw: bad.raw, ...(bad.headers ? { headers: bad.headers } : {}) });
        const label = `${method} ${path} with ${bad.label}`;
        assertError(t, r, bad.status, bad.code, label);
        if (bad.paths) t.same(detailPaths(r), bad.paths, `${label}: details name ${JSON.stringify(bad.paths)}`);
      }
    }
    const undecodable = await s.call('POST', '/api/projects', { raw: '{"name":"x"}', headers: { 'content-type': 'application/json', 'content-encoding': 'bogus' } });
    assertError(t, undecodable, 400, 'invalid_json', 'a body in an unknown Content-Encoding');

    const writeEndpoints: [string, string][] = [
      ...bodyEndpoints,
      ['DELETE', `/api/projects/${p.id}`],
      ['DELETE', `/api/services/${svc.id}`],
      ['DELETE', `/api/services/${svc.id}/env/00000000-0000-4000-8000-000000000000`],
      ['DELETE', `/api/services/${svc.id}/domains/${domainId}`],
      ['DELETE', '/api/keys/00000000-0000-4000-8000-000000000000'],
      ['POST', `/api/services/${svc.id}/deployments`],
      ['POST', '/api/deployments/00000000-0000-4000-8000-000000000000/abort'],
    ];
    const readEndpoints: [string, string][] = [
      ['GET', '/api/projects'],
      ['GET', `/api/projects/${p.slug}`],
      ['GET', `/api/projects/${p.id}/database-variable-suggestions`],
      ['GET', `/api/services/${svc.id}/overview`],
      ['GET', `/api/services/${svc.id}/suggestion-keys`],
      ['GET', '/api/keys'],
      ['GET', '/api/events'],
      ['GET', `/api/projects/${p.id}/events`],
      ['GET', `/api/services/${svc.id}/deployments`],
      ['GET', '/api/deployments/00000000-0000-4000-8000-000000000000/logs'],
      ['GET', '/api/deployments/00000000-0000-4000-8000-000000000000/stream'],
      ['GET', `/api/services/${svc.id}/runtime-logs/stream`],
    ];
    const valid = { name: 'x', key: 'A', value: 'b', hostname: 'x.example.com', branch: 'x' };
    for (const [method, path] of [...writeEndpoints, ...readEndpoints]) {
      const body = method === 'GET' ? {} : { body: valid };
      assertError(t, await s.call(method, path, { ...body, key: null }), 401, 'unauthorized', `${method} ${path} without a key`);
      assertError(t, await s.call(method, path, { ...body, key: 'slw_unknown' }), 401, 'unauthorized', `${method} ${path} with an unknown key`);
      assertError(t, await s.call(method, path, { ...body, key: null, headers: { authorization: `Basic ${s.key}` } }), 401, 'unauthorized', `${method} ${path} with a Basic header`);
    }
    for (const [method, path] of writeEndpoints) {
      assertError(t, await s.call(method, path, { body: valid, key: reader.secret }), 403, 'forbidden', `${method} ${path} with a read key`);
    }

    const notFound: [string, string][] = [
      ['GET', '/api/projects/no-such'],
      ['PATCH', '/api/projects/not-a-uuid'],
      ['DELETE', '/api/projects/00000000-0000-4000-8000-000000000000'],
      ['GET', '/api/services/not-a-uuid/overview'],
      ['PATCH', '/api/services/00000000-0000-4000-8000-000000000000'],
      ['POST', '/api/services/00000000-0000-4000-8000-000000000000/env'],
      ['DELETE', `/api/services/${svc.id}/env/not-a-uuid`],
      ['PATCH', `/api/services/${svc.id}/domains/not-a-uuid`],
      ['POST', '/api/services/00000000-0000-4000-8000-000000000000/deployments'],
      ['GET', '/api/services/not-a-uuid/deployments'],
      ['POST', '/api/deployments/00000000-0000-4000-8000-000000000000/abort'],
      ['GET', '/api/deployments/not-a-uuid/logs'],
      ['GET', '/api/deployments/00000000-0000-4000-8000-000000000000/stream'],
      ['GET', '/api/services/00000000-0000-4000-8000-000000000000/runtime-logs/stream'],
      ['GET', '/api/no-such-endpoint'],
    ];
    for (const [method, path] of notFound) {
      assertError(t, await s.call(method, path, method === 'GET' ? {} : { body: valid }), 404, 'not_found', `${method} ${path} is unknown`);
    }

    // A source on this host (loopback, its own address) that the installation does not allow.
    const forbidden: [string, Record<string, unknown>, string][] = [
      ['a Git URL on loopback', { name: 'f1', repoUrl: 'http://127.0.0.1:1/acme/x.git' }, 'repoUrl'],
      ['a Git URL naming localhost', { name: 'f2', repoUrl: 'http://localhost:2019/load.git' }, 'repoUrl'],
      ['a Git URL on an IPv4-mapped loopback address', { name: 'f3', repoUrl: 'http://[::ffff:127.0.0.1]:1/x.git' }, 'repoUrl'],
      ['an image from a registry on loopback', { name: 'f4', repoUrl: 'docker-image', dockerImage: '127.0.0.1:5000/x:1', internalPort: 80 }, 'dockerImage'],
      ['an image from the link-local metadata address', { name: 'f5', repoUrl: 'docker-image', dockerImage: '169.254.169.254/x:1', internalPort: 80 }, 'dockerImage'],
    ];
    for (const [label, body, field] of forbidden) {
      const r = await s.call('POST', `/api/projects/${p.id}/services`, { body });
      assertError(t, r, 400, 'forbidden_destination', label);
      t.same(detailPaths(r), [field], `${label}: details name ${field}`);
    }

    await t.test('paths with .. are not resolved: sent as written, they name nothing', async (t) => {
      // `fetch` would resolve each of these to another path before sending it; node:http sends it as written.
      for (const path of [
        '/api/services/../../etc/passwd',
        '/api/services/%2e%2e/%2e%2e/etc/passwd',
        '/api/services/../projects',
        '/api/services/%2e%2e/projects',
        '/api/services/%2E%2E/projects',
        `/api/services/${svc.id}/../../projects`,
        '/api/services/..%2f..%2fetc%2fpasswd/overview',
        '/api/projects/%2e%2e',
      ]) {
        assertError(t, await rawRequest(s.url, 'GET', path, { key: s.key }), 404, 'not_found', `GET ${path}`);
      }
      // The same resolved by a client would be the project list: the 404s above are not an accident of the path.
      t.equal((await rawRequest(s.url, 'GET', '/api/projects', { key: s.key })).status, 200, 'GET /api/projects itself answers');
    });

    await t.test('a method an endpoint lacks is 405 with Allow', async (t) => {
      const cases: [string, string, string][] = [
        ['PUT', '/api/projects', 'GET, HEAD, POST'],
        ['DELETE', '/api/projects', 'GET, HEAD, POST'],
        ['PUT', `/api/projects/${p.id}`, 'DELETE, GET, HEAD, PATCH'],
        ['POST', `/api/services/${svc.id}/overview`, 'GET, HEAD'],
        ['GET', `/api/services/${svc.id}/env`, 'POST'],
        ['PUT', `/api/services/${svc.id}/deployments`, 'GET, HEAD, POST'],
        ['GET', `/api/deployments/${domainId}/abort`, 'POST'],
        ['PATCH', '/api/keys', 'GET, HEAD, POST'],
        ['TRACE', '/api/projects', 'GET, HEAD, POST'],
        ['PROPFIND', `/api/services/${svc.id}`, 'DELETE, GET, HEAD, PATCH'],
      ];
      for (const [method, path, allow] of cases) {
        const r = await rawRequest(s.url, method, path, { key: s.key });
        assertError(t, r, 405, 'method_not_allowed', `${method} ${path}`);
        t.equal(String(r.headers.allow ?? '').split(', ').sort().join(', '), allow, `${method} ${path}: Allow ${allow}`);
      }
      assertError(t, await rawRequest(s.url, 'TRACE', '/api/no-such-endpoint', { key: s.key }), 404, 'not_found', 'an unknown method on an unknown path');
    });

    const after = await s.call('GET', `/api/events?after=${lastPosition}&limit=1000`);
    t.equal(after.status, 200);
    t.same(after.body.events.map((e: { type: string }) => e.type), [], 'no refused request wrote an event');
    t.equal((await s.call('GET', `/api/projects/${p.slug}`)).body.project.name, 'Errors', 'the project is as it was');
  });
}
