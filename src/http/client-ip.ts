import type { Request } from 'express';
import { ipKeyGenerator } from 'express-rate-limit';

/** The caller's address as a counting key (IPv6 folded to its /56), as rate limits and CAPTCHA risk see it. */
export function clientIp(req: Request): string {
  return ipKeyGenerator(req.ip ?? req.socket?.remoteAddress ?? 'unknown');
}
