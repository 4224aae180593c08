import type { Server, ServerResponse } from 'node:http';

/**
 * Closes an HTTP server without dropping anyone (docs/decisions/0015-graceful-stop.md): it stops
 * accepting, idle keep-alive connections are closed at once, each response still in flight (or
 * arriving on a kept-alive connection meanwhile) goes out with `Connection: close` so its
 * connection ends after it, and whatever is still open after `timeoutMs` is cut.
 * `track` must be called before the server accepts connections (it counts responses in flight).
 */
export function trackInFlight(server: Server): { close(timeoutMs: number): Promise<void> } {
  const inFlight = new Set<ServerResponse>();
  let closing = false;
  const lastResponse = (res: ServerResponse) => {
    if (!res.headersSent) res.setHeader('Connection', 'close');
  };
  server.prependListener('request', (_req, res: ServerResponse) => {
    if (closing) lastResponse(res);
    inFlight.add(res);
    res.once('close', () => inFlight.delete(res));
  });
  return {
    close(timeoutMs) {
      closing = true;
      return new Promise<void>((resolve) => {
        const cut = setTimeout(() => server.closeAllConnections(), timeoutMs);
        server.close(() => {
          clearTimeout(cut);
          resolve();
        });
        for (const res of inFlight) lastResponse(res);
        server.closeIdleConnections();
      });
    },
  };
}
