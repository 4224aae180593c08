import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { z, type ZodType } from 'zod';
import type { RouteDef, RouteModule } from '../define-routes';
import { idempotencyApplies } from '../idempotency';
import { exampleKey, loadExamples } from './openapi-examples';
import { limiterNamesOf, responsesOf } from './openapi-responses';
import { orderByTags } from './openapi-tags';
import { secretFieldsNote } from '../secret-fields';

export const API_VERSION = '3.1.2';

/** The header of every idempotent operation (docs/decisions/0010-idempotency-keys.md). */
const idempotencyHeaders = z.object({
  'Idempotency-Key': z
    .string()
    .min(1)
    .max(255)
    .optional()
    .describe(
      'Optional; 1 to 255 printable ASCII characters (send a random UUID). Kept 24 hours per account (one shared scope for guests): the same key with the same method, path and body answers the first answer again with `Idempotent-Replayed: true` and no second effect; with a different request 422 IDEMPOTENCY_KEY_REUSED; while the first still runs 409 IDEMPOTENCY_KEY_IN_USE with `Retry-After: 1`. A 5xx is not kept. A stored answer never keeps a secret: the replay answers a secret field as null with `secret_redacted: true` beside it.',
    ),
});

function toOpenApiPath(p: string): string {
  return p.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\/+$/, '') || '/';
}

const capital = (w: string) => w.charAt(0).toUpperCase() + w.slice(1);

/**
 * A stable operationId from method and path, e.g. `post /api/v1/fundraisers/{id}/comments` ->
 * `postFundraisersByIdComments` (the /api/v1 prefix is left out; every word is kept so two
 * routes never collide). A route may name its own with RouteDef.operationId.
 */
export function operationIdOf(method: string, openApiPath: string): string {
  const words = openApiPath
    .replace(/^\/api\/v1(?=\/|$)/, '')
    .split('/')
    .filter(Boolean)
    .map((seg) => {
      const param = /^\{(.+)\}$/.exec(seg);
      const parts = (param ? param[1]! : seg).split(/[^A-Za-z0-9]+/).filter(Boolean).map(capital);
      return (param ? 'By' : '') + parts.join('');
    });
  return method + (words.join('') || 'Root');
}

/**
 * Who may call the operation, as generated clients and gateways read it: `{}` (no credential)
 * is listed wherever a guest may call, so nothing prompts for a credential a guest does not
 * have; a cookie-only operation names the session cookie alone (a bearer answers 401 there).
 */
export function securityOf(r: Pick<RouteDef, 'auth'>): Array<Record<string, string[]>> {
  if (r.auth === 'none') return [{}];
  if (r.auth === 'optional') return [{}, { cookieSession: [] }, { bearer: [] }];
  if (r.auth === 'cookie') return [{ cookieSession: [] }];
  return [{ cookieSession: [] }, { bearer: [] }];
}

type Part = 'params' | 'query' | 'body' | 'response';
const PARTS: Part[] = ['params', 'query', 'body', 'response'];

function register(registry: OpenAPIRegistry, mod: RouteModule, r: RouteDef, parts: Set<Part> = new Set(PARTS)) {
  const full = (mod.root ? '' : '/api/v1') + mod.prefix + (r.path === '/' ? '' : r.path);
  const path = toOpenApiPath(full);
  const example = loadExamples()[exampleKey(r.method, path)];
  const bodyExample = example?.request !== undefined ? { example: example.request } : {};
  const responses = responsesOf(mod, r, parts.has('response'), example);
  const idempotent = !mod.root && idempotencyApplies(r);
  const limiterNames = limiterNamesOf(mod, r);
  const notes = [
    r.description,
    `Auth: ${typeof r.auth === 'object' ? `role ${r.auth.role}` : r.auth}.`,
    r.policy ? `Policy: ${r.policy.describe}.` : undefined,
    limiterNames.length ? `Rate limiters: ${limiterNames.join(', ')}.` : undefined,
    r.flag ? `Feature flag: ${r.flag}.` : undefined,
    r.secretFields?.length ? secretFieldsNote(r.secretFields) : undefined,
    parts.size < PARTS.length
      ? `Schema not rendered for: ${PARTS.filter((p) => !parts.has(p)).join(', ')}.`
      : undefined,
  ].filter(Boolean);
  registry.registerPath({
    method: r.method,
    path,
    operationId: r.operationId ?? operationIdOf(r.method, path),
    tags: [mod.tag],
    summary: r.summary,
    description: notes.join(' '),
    security: securityOf(r),
    request: {
      params: parts.has('params') ? (r.params as never) : undefined,
      query: parts.has('query') ? (r.query as never) : undefined,
      headers: idempotent ? idempotencyHeaders : undefined,
      body: !parts.has('body')
        ? undefined
        : r.consumes
          ? { content: { [r.consumes.mediaType]: { schema: r.consumes.schema } } }
          : r.body
            ? { content: { 'application/json': { schema: r.body as ZodType, ...bodyExample } } }
            : undefined,
    },
    responses,
  });
}

function newRegistry(): OpenAPIRegistry {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'cookieSession', { type: 'apiKey', in: 'cookie', name: 'access_token' });
  registry.registerComponent('securitySchemes', 'bearer', {
    type: 'http',
    scheme: 'bearer',
    description: 'An API key (ak_live_...) or an identity-provider ID token',
  });
  return registry;
}

/**
 * Paths carry their full address (/api/v1/..., the health checks at the root), so the one server
 * is the relative `/`: "Try it out" then calls whichever host served the document.
 */
const SERVERS = [{ url: '/', description: 'The host serving this document' }];

function generate(registry: OpenAPIRegistry): Record<string, unknown> {
  return orderByTags(new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Crowdfunding Platform REST API',
      version: API_VERSION,
      // A private service: the SPDX form for "no licence is granted".
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      description: 'Errors are never wrapped: `{ error, message, code?, details? }`. Money is integer cents.',
    },
    servers: SERVERS,
  }) as unknown as Record<string, unknown>);
}

/**
 * The OpenAPI 3.1 description, generated from every route table and its zod schemas. A schema
 * the generator cannot render (z.custom, .catch(), ...) must not take the whole document down:
 * the route is then listed without that one schema, and its description says which.
 */
export function buildOpenApi(modules: RouteModule[]): Record<string, unknown> {
  assertUniqueOperationIds(modules);
  const all = newRegistry();
  for (const mod of modules) for (const r of mod.routes) register(all, mod, r);
  register(all, SELF.mod, SELF.route);
  try {
    return generate(all);
  } catch {
    const safe = newRegistry();
    for (const mod of modules) for (const r of mod.routes) register(safe, mod, r, renderableParts(mod, r));
    register(safe, SELF.mod, SELF.route);
    return generate(safe);
  }
}

/**
 * This document itself (app.ts serves it beside the route tables, from the modules the app
 * mounts): listed so a client finds it where it reads everything else.
 */
const selfRoute: RouteDef = {
  method: 'get',
  path: '/openapi.json',
  summary: 'This OpenAPI 3.1 document',
  description: 'Generated from the route tables the service runs, so it lists exactly the operations it answers.',
  auth: 'none',
  response: z
    .object({ openapi: z.string(), info: z.object({ title: z.string(), version: z.string() }).passthrough(), paths: z.record(z.string(), z.unknown()) })
    .passthrough(),
  operationId: 'getOpenApiDocument',
  handler: () => undefined,
};
const SELF = { mod: { prefix: '', tag: 'docs', routes: [selfRoute] } as RouteModule, route: selfRoute };

/** Two operations with one operationId would make generated clients overwrite one method with the other. */
function assertUniqueOperationIds(modules: RouteModule[]): void {
  const seen = new Map<string, string>();
  for (const mod of modules) {
    for (const r of mod.routes) {
      const path = toOpenApiPath((mod.root ? '' : '/api/v1') + mod.prefix + (r.path === '/' ? '' : r.path));
      const id = r.operationId ?? operationIdOf(r.method, path);
      const where = `${r.method.toUpperCase()} ${path}`;
      const other = seen.get(id);
      if (other && other !== where) throw new Error(`operationId ${id} is used by ${other} and ${where}`);
      seen.set(id, where);
    }
  }
}

function renders(mod: RouteModule, r: RouteDef, parts?: Set<Part>): boolean {
  try {
    const one = newRegistry();
    register(one, mod, r, parts);
    generate(one);
    return true;
  } catch {
    return false;
  }
}

/** The schema parts of one route the generator can render (each tried alone). */
function renderableParts(mod: RouteModule, r: RouteDef): Set<Part> {
  if (renders(mod, r)) return new Set(PARTS);
  return new Set(PARTS.filter((part) => renders(mod, r, new Set([part]))));
}
