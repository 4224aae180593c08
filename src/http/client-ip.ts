import type { Request } from 'express';
import { ipKeyGenerator } from 'express-rate-limit';

/**
 * The caller's address as a counting key (IPv6 folded to its /56), as rate limits and CAPTCHA risk
 * see it. An address without a colon is IPv4, which ipKeyGenerator returns as it is: skipping its
 * IPv6 test (a regular expression) there saves a measurable share of a read-cache hit.
 */
export function clientIp(req: Request): string {
  const ip = req.ip ?? req.socket?.remoteAddress ?? 'unknown';
  return ip.includes(':') ? ipKeyGenerator(ip) : ip;
}
