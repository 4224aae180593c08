import type { Server } from 'node:http';

/**
 * The HTTP server's timeouts (README "Server timeouts"):
 * - a connection that sends and receives nothing for `idleMs` (default 30 s) is closed, so a
 *   slow-body or slow-headers client that stalls cannot hold a socket;
 * - `headersTimeout` = `idleMs`: the request line and headers must arrive within it;
 * - no `requestTimeout` (0): a large upload on a slow link that keeps sending is never cut off;
 *   the idle timeout is what bounds a stalled one;
 * - keep-alive 5 s between requests, longer than a typical proxy's, so the proxy closes first.
 */
export function applyServerTimeouts(server: Server, idleMs = 30_000): Server {
  server.headersTimeout = idleMs;
  server.requestTimeout = 0;
  server.keepAliveTimeout = Math.min(5_000, idleMs);
  // With no 'timeout' listener on the server, Node destroys the idle socket.
  server.setTimeout(idleMs);
  return server;
}
