/**
 * Where a process is in its life, for /readyz: `draining` from SIGTERM on (docs/decisions/0015-graceful-stop.md:
 * the load balancer sees 503 at once and stops sending new requests while the process keeps
 * serving for SHUTDOWN_DRAIN_MS).
 */
export class Lifecycle {
  draining = false;
}
