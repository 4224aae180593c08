import { BlockList, isIP } from 'node:net';
import type { Express, Request } from 'express';

/**
 * TRUST_PROXY as Express's `trust proxy` setting: a hop count, true/false, or the names and
 * CIDRs proxy-addr knows (`loopback`, `10.0.0.0/8`, ...). Every Express app of the service (the
 * API and the worker's metrics listener) applies it the same way, so `req.ip` means the same.
 */
export function applyTrustProxy(app: Express, value: string | undefined): void {
  if (value === undefined) return;
  app.set('trust proxy', /^\d+$/.test(value) ? Number(value) : value === 'true' ? true : value === 'false' ? false : value);
}

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addSubnet('::1', 128, 'ipv6');

/** 127.0.0.0/8 and ::1, written plainly or as IPv4-mapped IPv6 (::ffff:127.x.y.z); anything else (a port, `unknown`) is not. */
export function isLoopbackAddress(addr: string | undefined): boolean {
  const a = (addr ?? '').trim().toLowerCase().replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '');
  const family = isIP(a);
  return family !== 0 && LOOPBACK.check(a, family === 4 ? 'ipv4' : 'ipv6');
}

// Headers a proxy may name the client in that Express does not read: behind such a proxy the
// socket's (loopback) address says nothing about who is asking.
const UNREAD_FORWARDING = ['forwarded', 'x-real-ip', 'x-client-ip', 'true-client-ip', 'cf-connecting-ip'];

/**
 * Whether a request comes from a client on this machine, for the surfaces that answer loopback
 * clients only (GET /metrics without METRICS_TOKEN, on the API and the worker's port).
 * The client is `req.ip`, the address Express derives under TRUST_PROXY; and, because a proxy
 * on loopback may run while TRUST_PROXY is unset (then req.ip is the proxy's address), every
 * address the request names must be loopback too: each X-Forwarded-For entry, trusted or not,
 * and no forwarding header Express ignores. A forwarded external client is thus refused
 * whatever TRUST_PROXY says; a forwarded loopback client (X-Forwarded-For: 127.0.0.1) is not.
 */
export function isLoopbackClient(req: Request): boolean {
  if (!isLoopbackAddress(req.ip ?? req.socket?.remoteAddress)) return false;
  if (!isLoopbackAddress(req.socket?.remoteAddress)) return false;
  if (UNREAD_FORWARDING.some((h) => req.headers[h] !== undefined)) return false;
  const xff = req.headers['x-forwarded-for'];
  if (xff === undefined) return true;
  const entries = (Array.isArray(xff) ? xff.join(',') : xff).split(',');
  return entries.every((e) => isLoopbackAddress(e));
}
