import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TranslateCall {
  q: string;
  source: string;
  target: string;
  format: string;
  api_key?: string;
}

/**
 * A LibreTranslate-compatible server on 127.0.0.1 (`POST /translate` → `{ translatedText }`):
 * it answers `[target] q` so tests can tell which locale a text was sent to, and records each call.
 * `failing = true` makes it answer 500.
 */
export async function startTranslateServer() {
  const calls: TranslateCall[] = [];
  const state = { failing: false };
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/translate') {
        res.writeHead(404).end();
        return;
      }
      const body = JSON.parse(raw) as TranslateCall;
      calls.push(body);
      if (state.failing) {
        res.writeHead(500, { 'Content-Type': 'application/json' }).end(JSON.stringify({ error: 'boom' }));
        return;
      }
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ translatedText: `[${body.target}] ${body.q}` }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, calls, state, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
