import { createReadStream, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type Router from '@koa/router';
import type { Slipway } from '../../slipway.js';
import { ENDPOINTS } from '../contract/all.js';
import { route } from '../contract/endpoint.js';
import { DOCS_ASSETS, metaApi } from '../contract/meta.js';
import { notFoundHttp } from '../errors.js';
import { PAGE_POLICY } from '../security-headers.js';
import { buildOpenApiDocument } from '../openapi/document.js';
import { packageRoot } from '../../package-root.js';

const require = createRequire(import.meta.url);

/** Slipway's version, from its package.json. */
const slipwayVersion = (): string => (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;

const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Slipway API reference</title>
<link rel="stylesheet" href="/api/docs/swagger-ui.css">
</head>
<body>
<div id="reference"></div>
<script src="/api/docs/swagger-ui-bundle.js"></script>
<script src="/api/docs/docs.js"></script>
</body>
</html>
`;

// The page never asks for a key: "Try it out" sends the one the reader types under Authorize.
const DOCS_SCRIPT = `window.ui = SwaggerUIBundle({ url: '/api/openapi.json', dom_id: '#reference', deepLinking: true, docExpansion: 'list', tryItOutEnabled: false, validatorUrl: null });\n`;

const ASSET_TYPES: Record<(typeof DOCS_ASSETS)[number], string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'docs.js': 'text/javascript; charset=utf-8',
};

/** The OpenAPI document (built once, on first request) and the reference page that renders it, from local files. */
export function openApiRoutes(router: Router, _app: Slipway) {
  let document: string | null = null;
  const swaggerDir = () => dirname(require.resolve('swagger-ui-dist/package.json'));

  route(router, metaApi.openApiDocument, (ctx) => {
    document ??= JSON.stringify(buildOpenApiDocument(ENDPOINTS, slipwayVersion()));
    ctx.type = 'application/json';
    ctx.body = document;
  });

  route(router, metaApi.docs, (ctx) => {
    ctx.type = 'text/html; charset=utf-8';
    ctx.set('Content-Security-Policy', PAGE_POLICY);
    ctx.body = DOCS_PAGE;
  });

  route(router, metaApi.docsAsset, (ctx) => {
    const asset = DOCS_ASSETS.find((a) => a === ctx.params.asset);
    if (!asset) throw notFoundHttp('file');
    ctx.type = ASSET_TYPES[asset];
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.body = asset === 'docs.js' ? DOCS_SCRIPT : createReadStream(join(swaggerDir(), asset));
  });
}
