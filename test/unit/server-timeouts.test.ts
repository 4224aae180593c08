import type { AddressInfo } from 'node:net';
import net from 'node:net';
import express from 'express';
import { applyServerTimeouts } from '../../src/http/server-timeouts';

// A client that stalls is closed after the idle timeout; an upload that keeps sending,
// however slowly, is never cut off (no overall request timeout).

const IDLE_MS = 1000;

async function start() {
  const app = express();
  app.post('/upload', express.raw({ type: '*/*', limit: '1mb' }), (req, res) => res.json({ bytes: (req.body as Buffer).length }));
  const server = applyServerTimeouts(app.listen(0, '127.0.0.1'), IDLE_MS);
  await new Promise((r) => server.once('listening', r));
  return { server, port: (server.address() as AddressInfo).port };
}

const closed = (s: net.Socket) => new Promise<number>((resolve) => {
  const t0 = Date.now();
  s.once('close', () => resolve(Date.now() - t0));
});

test('when a client sends half a request and then nothing, then the server closes it after the idle timeout', async () => {
  const { server, port } = await start();
  try {
    const s = net.connect(port, '127.0.0.1');
    s.on('error', () => undefined);
    await new Promise((r) => s.once('connect', r));
    const done = closed(s);
    s.write('POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nabc');
    const ms = await done;
    expect(ms).toBeGreaterThanOrEqual(IDLE_MS - 100);
    expect(ms).toBeLessThan(IDLE_MS + 2000);
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});

test('when an upload trickles in for longer than the idle timeout but never stalls, then it completes', async () => {
  const { server, port } = await start();
  try {
    const s = net.connect(port, '127.0.0.1');
    await new Promise((r) => s.once('connect', r));
    let reply = '';
    s.on('data', (d) => (reply += d));
    const chunks = 8;
    s.write(`POST /upload HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\nContent-Length: ${chunks}\r\nConnection: close\r\n\r\n`);
    // 8 bytes, one every 400 ms: 3.2 s in all, more than three idle timeouts, never idle for one.
    for (let i = 0; i < chunks; i++) {
      await new Promise((r) => setTimeout(r, 400));
      s.write('x');
    }
    await new Promise((r) => s.once('close', r));
    expect(reply).toMatch(/^HTTP\/1.1 200/);
    expect(reply).toContain('{"bytes":8}');
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});
