import fs from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { Express } from 'express';
import type { RouteModule } from '../../src/http/define-routes';
import { buildOpenApi } from '../../src/http/openapi/openapi';

/**
 * Holds every answer a test receives from an app against the OpenAPI document that app serves:
 * the status is documented for the operation (exactly, as a range like 2XX, or under `default`
 * for an error only), the media type is a documented one, a JSON body satisfies the documented
 * schema (JSON Schema 2020-12, Ajv's 2020 build fed the document itself, so `$ref`s to
 * components resolve as a client's would), and a 2xx given to a request without a credential is
 * on an operation whose `security` lists `{}`. Mismatches are kept until the jest setup's
 * afterEach takes them and fails the test that made the request.
 */

type Json = Record<string, any>;
interface Operation {
  method: string;
  template: string;
  pattern: RegExp;
  literals: number;
  op: Json;
}
interface Contract {
  doc: Json;
  id: string;
  ajv: Ajv2020;
  operations: Operation[];
  validators: Map<string, ValidateFunction>;
}

/**
 * Answers that are not the API: the Swagger UI's static files, the Prometheus scrape target (an
 * operator endpoint in the exposition format, behind its own token) and CORS preflights, which
 * the cors middleware answers before any operation is chosen.
 */
const NOT_THE_API = [/^\/api\/v1\/docs\/assets\//, /^\/metrics$/];

const mismatches: string[] = [];
const contracts = new Map<string, Contract>();
const moduleIds = new WeakMap<RouteModule, number>();
let nextId = 0;

/** The mismatches recorded since the last call (the setup file's afterEach fails the test on any). */
export function takeContractMismatches(): string[] {
  return mismatches.splice(0);
}

const moduleKey = (modules: RouteModule[]) =>
  modules
    .map((m) => {
      if (!moduleIds.has(m)) moduleIds.set(m, (nextId += 1));
      return moduleIds.get(m);
    })
    .join(',');

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function contractOf(modules: RouteModule[]): Contract {
  const key = moduleKey(modules);
  const cached = contracts.get(key);
  if (cached) return cached;
  const doc = buildOpenApi(modules) as Json;
  const id = `https://contract.test/${contracts.size}/openapi.json`;
  // strictSchema: a keyword or format the document uses that Ajv does not know fails loudly.
  const ajv = new Ajv2020({ strict: false, strictSchema: true, validateFormats: true, inlineRefs: false });
  addFormats(ajv);
  // OpenAPI's own schema keywords and formats (annotations for Ajv).
  ajv.addVocabulary(['example', 'discriminator', 'xml', 'externalDocs']);
  // The document's own top-level fields, so Ajv takes the whole document as the base its `$ref`s resolve in.
  ajv.addVocabulary(['openapi', 'info', 'servers', 'paths', 'components', 'tags', 'webhooks', 'security', 'jsonSchemaDialect']);
  for (const f of ['binary', 'byte', 'int32', 'int64', 'float', 'double', 'password']) ajv.addFormat(f, true);
  ajv.addSchema(doc, id);
  const operations: Operation[] = [];
  for (const [template, item] of Object.entries<Json>(doc.paths ?? {})) {
    const segs = template.split('/').filter(Boolean);
    const source = segs.map((s) => (/^\{.+\}$/.test(s) ? '/[^/]+' : `/${escapeRe(s)}`)).join('');
    // Express matches paths case-insensitively and takes a trailing slash.
    const pattern = new RegExp(`^${source || ''}/?$`, 'i');
    const literals = segs.filter((s) => !s.startsWith('{')).length;
    for (const [method, op] of Object.entries<Json>(item)) operations.push({ method, template, pattern, literals, op });
  }
  // A literal segment wins over a parameter, as the app mounts its routes.
  operations.sort((a, b) => b.literals - a.literals);
  const contract = { doc, id, ajv, operations, validators: new Map() };
  contracts.set(key, contract);
  return contract;
}

const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/** Where a schema lives: most answers are a bare `$ref` to a component (every Error), compiled once for all. */
function schemaRefOf(c: Contract, ref: string): string {
  let at: unknown = c.doc;
  for (const part of ref.split('/')) at = (at as Json | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  const target = (at as Json | undefined)?.$ref;
  return typeof target === 'string' && Object.keys(at as Json).length === 1 && target.startsWith('#/') ? target.slice(2) : ref;
}

function validatorFor(c: Contract, fragment: string): ValidateFunction {
  const ref = schemaRefOf(c, fragment);
  let v = c.validators.get(ref);
  if (!v) {
    v = c.ajv.getSchema(`${c.id}#/${ref}`);
    if (!v) throw new Error(`no schema at ${ref}`);
    c.validators.set(ref, v);
  }
  return v;
}

const mediaTypeOf = (value: unknown) => String(value ?? '').split(';')[0]!.trim().toLowerCase();
const isJson = (type: string) => type === 'application/json' || type.endsWith('+json') || type === 'application/x-amz-json-1.1';

function mediaMatches(documented: string, actual: string): boolean {
  if (documented === '*/*' || documented === actual) return true;
  return documented.endsWith('/*') && actual.startsWith(documented.slice(0, -1));
}

interface Answer {
  method: string;
  path: string;
  status: number;
  contentType: string;
  body: Buffer | null;
  bytes: number;
  credential: 'none' | 'cookie' | 'bearer';
}

function credentialOf(req: IncomingMessage): Answer['credential'] {
  if (/(?:^|;\s*)(?:access_token|id_token)=/.test(req.headers.cookie ?? '')) return 'cookie';
  if (/^Bearer\s/i.test(req.headers.authorization ?? '')) return 'bearer';
  return 'none';
}

/** What is wrong with one answer, or nothing. */
export function checkAnswer(c: Contract, a: Answer): string[] {
  const where = `${a.method} ${a.path} -> ${a.status}`;
  const method = a.method === 'HEAD' ? 'get' : a.method.toLowerCase();
  const found = c.operations.find((o) => o.method === method && o.pattern.test(a.path));
  if (!found) {
    // No operation: the pipeline refuses it (404, or the body parser's 400/413 before routing) in the Error shape.
    if (a.status >= 400 && a.status < 500 && isJson(a.contentType)) return checkBody(c, a, 'components/schemas/Error', where);
    return [`${where}: no operation in the document answers this request`];
  }
  const { op, template } = found;
  const label = `${a.method} ${a.path} (${method.toUpperCase()} ${template}) -> ${a.status}`;
  const responses: Json = op.responses ?? {};
  const statusKey = [String(a.status), `${String(a.status)[0]}XX`].find((k) => responses[k]) ?? (a.status >= 400 && responses.default ? 'default' : undefined);
  if (!statusKey) return [`${label}: status not documented (documented: ${Object.keys(responses).join(', ')})`];
  const problems: string[] = [];
  if (a.status >= 200 && a.status < 300 && Array.isArray(op.security) && op.security.length > 0) {
    const admits = (scheme: string) => op.security.some((req: Json) => Object.keys(req).length === (scheme ? 1 : 0) && (!scheme || scheme in req));
    if (a.credential === 'none' && !admits('')) problems.push(`${label}: a guest got a success, but the operation's security does not list {}`);
    if (a.credential === 'bearer' && !admits('') && !admits('bearer')) problems.push(`${label}: a bearer got a success, but the operation's security does not list bearer`);
  }
  const content: Json | undefined = responses[statusKey].content;
  if (a.method === 'HEAD' || a.status === 204 || a.status === 304) return problems;
  if (!content) {
    if (a.bytes > 0 && (a.status < 300 || a.status >= 400)) problems.push(`${label}: a body (${a.contentType || 'no type'}) where the document gives none`);
    return problems;
  }
  const mediaKey = Object.keys(content).find((m) => mediaMatches(m, a.contentType));
  if (!mediaKey) return [...problems, `${label}: media type ${a.contentType || '(none)'} not documented (documented: ${Object.keys(content).join(', ')})`];
  if (!content[mediaKey].schema || !isJson(a.contentType)) return problems;
  const ref = pointer('paths', template, method, 'responses', statusKey, 'content', mediaKey, 'schema');
  return [...problems, ...checkBody(c, a, ref, label)];
}

function checkBody(c: Contract, a: Answer, ref: string, label: string): string[] {
  if (!a.body) return a.bytes > 0 ? [] : [`${label}: an empty body where JSON is documented`];
  let value: unknown;
  try {
    value = JSON.parse(a.body.toString('utf8'));
  } catch {
    return [`${label}: the body is not JSON`];
  }
  const validate = validatorFor(c, ref);
  if (validate(value)) return [];
  const errors = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message}${e.params && 'additionalProperty' in e.params ? ` (${e.params.additionalProperty})` : ''}`);
  return [`${label}: body off-schema: ${errors.join('; ')}; body: ${a.body.toString('utf8').slice(0, 300)}`];
}

/** JSON bodies above this are not kept (none of the API's is near it); their size still counts. */
const MAX_BODY = 4 * 1024 * 1024;

/** A header as sent: set on the response, or handed to writeHead (the fast path's flat list). */
function headerOf(res: ServerResponse, given: Map<string, string>, name: string): string {
  return String(res.getHeader(name) ?? given.get(name) ?? '');
}

function rememberHeaders(given: Map<string, string>, headers: unknown): void {
  if (Array.isArray(headers)) {
    const flat = Array.isArray(headers[0]) ? (headers as unknown[][]).flat() : headers;
    for (let i = 0; i + 1 < flat.length; i += 2) given.set(String(flat[i]).toLowerCase(), String(flat[i + 1]));
  } else if (headers && typeof headers === 'object') {
    for (const [k, v] of Object.entries(headers)) given.set(k.toLowerCase(), String(v));
  }
}

function capture(contract: () => Contract, req: IncomingMessage, res: ServerResponse): void {
  const path = (req.url ?? '/').split('?')[0]!;
  if (req.method === 'OPTIONS' || NOT_THE_API.some((re) => re.test(path))) return;
  const chunks: Buffer[] = [];
  const given = new Map<string, string>();
  let bytes = 0;
  let keep: boolean | undefined;
  const take = (chunk: unknown, encoding?: unknown) => {
    if (chunk == null || typeof chunk === 'function') return;
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
    bytes += buf.length;
    keep ??= isJson(mediaTypeOf(headerOf(res, given, 'content-type'))) && !headerOf(res, given, 'content-encoding');
    if (keep && bytes <= MAX_BODY) chunks.push(buf);
  };
  let done = false;
  const check = () => {
    // An answer whose headers never went out (the client left first) said nothing to hold.
    if (done || !res.headersSent) return;
    done = true;
    const answer: Answer = {
      method: req.method ?? 'GET',
      path,
      status: res.statusCode,
      contentType: mediaTypeOf(headerOf(res, given, 'content-type')),
      body: keep && bytes > 0 && bytes <= MAX_BODY ? Buffer.concat(chunks) : null,
      bytes,
      credential: credentialOf(req),
    };
    try {
      const found = checkAnswer(contract(), answer);
      mismatches.push(...found);
      // A whole run's mismatches in one file, to read beside the failures (OPENAPI_CONTRACT_LOG=<file>).
      if (found.length && process.env.OPENAPI_CONTRACT_LOG) fs.appendFileSync(process.env.OPENAPI_CONTRACT_LOG, `${found.join('\n')}\n`);
    } catch (err) {
      mismatches.push(`${answer.method} ${path}: the contract check failed: ${(err as Error).message}`);
    }
  };
  const { writeHead, write, end } = res;
  res.writeHead = function (this: ServerResponse, ...args: unknown[]) {
    rememberHeaders(given, typeof args[1] === 'string' ? args[2] : args[1]);
    return (writeHead as (...a: unknown[]) => ServerResponse).apply(this, args);
  } as ServerResponse['writeHead'];
  res.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
    take(chunk, rest[0]);
    return (write as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
  } as ServerResponse['write'];
  // Checked as the answer ends, before the client can read it: the test that awaits it is still running.
  res.end = function (this: ServerResponse, chunk?: unknown, ...rest: unknown[]) {
    take(chunk, rest[0]);
    const out = (end as (...a: unknown[]) => ServerResponse).call(this, chunk, ...rest);
    check();
    return out;
  } as ServerResponse['end'];
  // A stream the client closes (server-sent events) never ends on the server's side.
  res.once('close', check);
}

/**
 * Puts the contract check in front of everything the app does (the read cache's fast path
 * included): every request to `app`, through supertest or a listening server, is checked.
 */
export function holdToContract<T extends Express>(app: T, modules: RouteModule[]): T {
  // Built at the first answer: many files make an app only for its context and never call it.
  let contract: Contract | undefined;
  const c = () => (contract ??= contractOf(modules));
  const target = app as unknown as { handle: (req: IncomingMessage, res: ServerResponse, done?: unknown) => void };
  const handle = target.handle;
  target.handle = function contractHandle(req, res, done) {
    capture(c, req, res);
    handle.call(this, req, res, done);
  };
  return app;
}

/** The compiled contract of a module set (the unit test drives checkAnswer with it). */
export const contractFor = contractOf;
