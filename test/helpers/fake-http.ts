import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface FakeServer {
  url: string;
  requests: RecordedRequest[];
  /** Replaces the answer for the following requests. */
  answer(fn: (req: RecordedRequest) => { status?: number; body: unknown }): void;
  close(): Promise<void>;
}

/** A small JSON server on 127.0.0.1 standing in for a third-party API; records what it was asked. */
export async function startFakeServer(initial: (req: RecordedRequest) => { status?: number; body: unknown }): Promise<FakeServer> {
  let handler = initial;
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rec = { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      requests.push(rec);
      const out = handler(rec);
      res.writeHead(out.status ?? 200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(out.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    answer: (fn) => {
      handler = fn;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
