import path from 'node:path';
import { defineRoutes, route } from '../../http/define-routes';

export const SWAGGER_UI_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));

// Absolute paths: the page works at /api/v1/docs and /api/v1/docs/ alike.
const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Crowdfunding API</title>
<link rel="stylesheet" href="/api/v1/docs/assets/swagger-ui.css"></head>
<body><div id="swagger-ui"></div>
<script src="/api/v1/docs/assets/swagger-ui-bundle.js"></script>
<script src="/api/v1/docs/init.js"></script></body></html>`;

const INIT = `window.ui = SwaggerUIBundle({ url: '/api/v1/openapi.json', dom_id: '#swagger-ui' });`;

// The OpenAPI document itself is served by app.ts, which knows every module.
export default defineRoutes(
  '/docs',
  [
    route({
      method: 'get',
      path: '/',
      summary: 'Human-readable API documentation (Swagger UI)',
      auth: 'none',
      produces: 'text/html',
      handler: ({ res }) => {
        res.type('html').send(PAGE);
      },
    }),
    route({
      method: 'get',
      path: '/init.js',
      summary: 'Docs page bootstrap script',
      auth: 'none',
      produces: 'application/javascript',
      handler: ({ res }) => {
        res.type('application/javascript').send(INIT);
      },
    }),
  ],
  { tag: 'docs' },
);
