import { z } from 'zod';
import { endpoint } from './endpoint.js';

export const DOCS_ASSETS = ['swagger-ui.css', 'swagger-ui-bundle.js', 'docs.js'] as const;

export const metaApi = {
  liveness: endpoint({
    method: 'get',
    path: '/healthz',
    operationId: 'liveness',
    tag: 'Health',
    summary: 'Liveness: the process answers',
    access: 'public',
    response: z.object({ ok: z.literal(true), projections: z.string().nullable().meta({ description: 'The log position the read models have reached: an opaque token that only grows; null before the first event.' }) }),
  }),
  openApiDocument: endpoint({
    method: 'get',
    path: '/api/openapi.json',
    operationId: 'getOpenApiDocument',
    tag: 'Documentation',
    summary: 'This document (OpenAPI 3.1)',
    access: 'public',
    rawResponse: { mediaType: 'application/json', description: 'The OpenAPI 3.1 document.' },
  }),
  docs: endpoint({
    method: 'get',
    path: '/api/docs',
    operationId: 'getApiReference',
    tag: 'Documentation',
    summary: 'A readable API reference page, generated from this document',
    access: 'public',
    rawResponse: { mediaType: 'text/html', description: 'The reference page.' },
  }),
  docsAsset: endpoint({
    method: 'get',
    path: '/api/docs/:asset',
    operationId: 'getApiReferenceAsset',
    tag: 'Documentation',
    summary: `The reference page’s scripts and styles (${DOCS_ASSETS.join(', ')}), served from this machine`,
    access: 'public',
    rawResponse: { mediaType: 'application/octet-stream', description: 'The file.' },
    errors: [404],
  }),
};
