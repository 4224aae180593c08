import path from 'node:path';
import { defineRoutes, route } from '../../http/define-routes';

export const SWAGGER_UI_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));

// Absolute paths: the page works at /api/v1/docs and /api/v1/docs/ alike.
// The viewport tag and the narrow-screen rules keep the page readable on a phone: Swagger UI
// otherwise lays out for a desktop width and long paths and code blocks run off the screen.
const MOBILE_CSS = `
body { margin: 0; }
@media (max-width: 640px) {
  .swagger-ui .wrapper { padding: 0 8px; }
  .swagger-ui .info { margin: 16px 0; }
  .swagger-ui .info .title { font-size: 24px; }
  .swagger-ui .opblock .opblock-summary { flex-wrap: wrap; }
  .swagger-ui .opblock .opblock-summary-path { max-width: 100%; word-break: break-all; }
  .swagger-ui .opblock .opblock-summary-description { flex-basis: 100%; padding-top: 4px; }
  .swagger-ui table, .swagger-ui .parameters-col_description { display: block; max-width: 100%; overflow-x: auto; }
  .swagger-ui pre, .swagger-ui .microlight { white-space: pre-wrap; word-break: break-word; }
  .swagger-ui .scheme-container, .swagger-ui .topbar { display: none; }
}`;

// Absolute paths: the page works at /api/v1/docs and /api/v1/docs/ alike.
const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Crowdfunding API</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/api/v1/docs/assets/swagger-ui.css">
<style>${MOBILE_CSS}</style></head>
<body><div id="swagger-ui"></div>
<script src="/api/v1/docs/assets/swagger-ui-bundle.js"></script>
<script src="/api/v1/docs/init.js"></script></body></html>`;

// Operations start folded and a filter box finds one by tag: 190 operations open at once are
// unreadable on a small screen.
const INIT = `window.ui = SwaggerUIBundle({ url: '/api/v1/openapi.json', dom_id: '#swagger-ui', docExpansion: 'none', filter: true, deepLinking: true });`;

// The OpenAPI document itself is served by app.ts, which knows every module.
export default defineRoutes(
  '/docs',
  [
    route({
      method: 'get',
      path: '/',
      skipGlobalLimiter: true,
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
      skipGlobalLimiter: true,
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
