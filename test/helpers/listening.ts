import type { AddressInfo, Server } from 'node:net';
import type { TestApp } from './app';

/**
 * Serves `t` on a real loopback port for the file's tests and points the sandbox processor's
 * webhook deliveries at it, so every event the sandbox sends goes through the webhook's real
 * signature check over HTTP, as Stripe's would. Answers the base URL once listening.
 */
export function serveForSandbox(t: TestApp): { base(): string } {
  let server: Server;
  let base = '';
  beforeAll(async () => {
    server = t.app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // The port exists only now; the config is the one object every delivery reads.
    t.ctx.config.SANDBOX_WEBHOOK_URL = `${base}/api/v1/webhooks/stripe`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { base: () => base };
}
