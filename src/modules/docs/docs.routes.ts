import path from 'node:path';
import { defineRoutes, route } from '../../http/define-routes';

export const SWAGGER_UI_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));

// The viewport tag and the narrow-screen rules keep the page readable on a phone (checked in
// headless Chromium, test/e2e/docs-browser.test.ts): Swagger UI otherwise lays out for a desktop
// width, so tag descriptions shrink to a word a line, the response table squeezes each example
// into a third of the screen, and long paths and code run off it.
const MOBILE_CSS = `
body { margin: 0; }
@media (max-width: 640px) {
  .swagger-ui .wrapper { padding: 0 8px; }
  .swagger-ui .info { margin: 16px 0; }
  .swagger-ui .info .title { font-size: 24px; }
  .swagger-ui .scheme-container, .swagger-ui .topbar { display: none; }
  .swagger-ui .filter-container .operation-filter-input { width: 100%; box-sizing: border-box; }
  /* A tag: its name and arrow on one line, the description under them at full width. */
  .swagger-ui .opblock-tag { flex-wrap: wrap; font-size: 20px; padding: 8px 4px; }
  .swagger-ui .opblock-tag > a { flex: 1 1 auto; }
  .swagger-ui .opblock-tag small { order: 3; flex: 1 1 100%; padding: 2px 0 0; font-size: 14px; }
  /* An operation's summary: method, path and summary take what the buttons leave. */
  .swagger-ui .opblock .opblock-summary { padding: 4px; }
  .swagger-ui .opblock .opblock-summary-control { min-width: 0; }
  .swagger-ui .opblock .opblock-summary-method { min-width: 56px; padding: 6px 4px; font-size: 12px; }
  .swagger-ui .opblock .opblock-summary-path-description-wrapper { min-width: 0; padding: 0 6px; }
  .swagger-ui .opblock .opblock-summary-path { max-width: 100%; word-break: normal; overflow-wrap: anywhere; font-size: 14px; }
  .swagger-ui .opblock .opblock-summary-description { flex-basis: 100%; padding-top: 2px; font-size: 13px; }
  .swagger-ui .opblock .opblock-summary > :not(.opblock-summary-control) { flex: none; }
  .swagger-ui .opblock-description-wrapper, .swagger-ui .opblock-section-header, .swagger-ui .responses-inner, .swagger-ui .opblock-body .table-container { padding-left: 8px; padding-right: 8px; }
  /* Parameters and responses: one row under another, each at full width, not three narrow columns. */
  .swagger-ui table { display: block; max-width: 100%; overflow-x: auto; }
  .swagger-ui table.parameters tbody, .swagger-ui table.parameters tr, .swagger-ui table.parameters td,
  .swagger-ui table.responses-table tbody, .swagger-ui table.responses-table tr, .swagger-ui table.responses-table td {
    display: block; width: 100%; max-width: 100%; box-sizing: border-box; padding-left: 0; padding-right: 0;
  }
  .swagger-ui table.parameters thead, .swagger-ui table.responses-table thead, .swagger-ui table.responses-table td.response-col_links { display: none; }
  .swagger-ui table.parameters td.parameters-col_name { padding-bottom: 4px; }
  .swagger-ui table.responses-table td.response-col_status { padding-top: 16px; padding-bottom: 0; font-weight: 700; }
  .swagger-ui .parameters-col_description input, .swagger-ui .parameters-col_description select, .swagger-ui .parameters-col_description textarea { max-width: 100%; box-sizing: border-box; }
  .swagger-ui select { max-width: 100%; }
  /* Code and examples wrap at the screen's edge, breaking long values only where they must. */
  .swagger-ui pre, .swagger-ui .microlight { white-space: pre-wrap; word-break: normal; overflow-wrap: anywhere; font-size: 12px; }
}`;

// Absolute paths: the page works at /api/v1/docs and /api/v1/docs/ alike.
const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Crowdfunding API</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" type="image/png" href="/api/v1/docs/assets/favicon-32x32.png">
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
