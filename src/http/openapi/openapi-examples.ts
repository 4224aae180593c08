import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type { Request, Response } from 'express';
import type { ZodType } from 'zod';
import path from 'node:path';
import { PROJECT_ROOT } from '../../project-root';

/**
 * Examples for the OpenAPI document, recorded from the test suite's own successful calls
 * (`npm run openapi:examples`), so every example is an answer the service really gave and a test
 * proves each still matches its operation's schemas.
 */
export interface OperationExample {
  status: number;
  request?: unknown;
  response?: unknown;
}

export const EXAMPLES_FILE = path.join(PROJECT_ROOT, 'docs/openapi/examples.json');

/** `get /api/v1/fundraisers/{id}`: the operation's method and OpenAPI path. */
export const exampleKey = (method: string, openApiPath: string) => `${method.toLowerCase()} ${openApiPath}`;

let loaded: Record<string, OperationExample> | null = null;

export function loadExamples(): Record<string, OperationExample> {
  if (!loaded) {
    try {
      loaded = JSON.parse(fs.readFileSync(EXAMPLES_FILE, 'utf8')) as Record<string, OperationExample>;
    } catch {
      loaded = {};
    }
  }
  return loaded;
}

const SECRET_PATTERNS: [RegExp, string][] = [
  [/^ak_live_[A-Za-z0-9_-]+$/, 'ak_live_3kTq9ZbW1xExampleKeyShownOnce'],
  [/^whsec_[A-Za-z0-9+/=]+$/, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
  [/^eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/, 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJleGFtcGxlIn0.c2lnbmF0dXJl'],
];

/** Secrets become fixed stand-ins and lists keep two items: an example shows a shape, not a dump. */
export function redact(value: unknown): unknown {
  if (typeof value === 'string') {
    for (const [re, stand] of SECRET_PATTERNS) if (re.test(value)) return stand;
    return value;
  }
  if (Array.isArray(value)) return value.slice(0, 2).map(redact);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, redact(v)]));
  }
  return value;
}

const recordDir = process.env.RECORD_OPENAPI_EXAMPLES;

/**
 * While recording, the first success of each operation is written to its own file (the jest
 * workers are separate processes; the exclusive create lets the first one win).
 */
export function recordExample(method: string, expressPath: string, example: OperationExample): void {
  if (!recordDir) return;
  const openApiPath = expressPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\/+$/, '') || '/';
  const key = exampleKey(method, openApiPath);
  const file = path.join(recordDir, `${createHash('sha1').update(key).digest('hex')}.json`);
  if (fs.existsSync(file)) return;
  try {
    fs.writeFileSync(file, JSON.stringify({ key, example: redact(example) }), { flag: 'wx' });
  } catch {
    // Another worker recorded it first.
  }
}

export const recordingExamples = Boolean(recordDir);

/**
 * While recording, the JSON answer of a success is captured as it is written, whichever way the
 * handler sends it (returned data, a prepared cached body, `res.json`).
 */
export function captureExample(method: string, bodySchema: ZodType | undefined, req: Request, res: Response): void {
  const end = res.end.bind(res) as (...args: unknown[]) => Response;
  (res as unknown as { end: (...args: unknown[]) => Response }).end = (...args: unknown[]) => {
    try {
      const chunk = args[0];
      const type = String(res.getHeader('content-type') ?? '');
      if (res.statusCode >= 200 && res.statusCode < 300 && /json/.test(type) && (typeof chunk === 'string' || Buffer.isBuffer(chunk)) && req.route) {
        const response = JSON.parse(chunk.toString()) as unknown;
        // The request as the operation reads it: fields it ignores are left out of the example.
        const request = bodySchema ? bodySchema.safeParse(req.body).data : undefined;
        recordExample(method, req.baseUrl + (req.route as { path: string }).path, { status: res.statusCode, request, response });
      }
    } catch {
      // Not JSON after all: nothing to record.
    }
    return end(...args);
  };
}
