import type { Request } from 'express';

/** A visitor id as the site mints it (cookie `visitor_id`, or query `v` from clients without cookies). */
export const VISITOR_ID = /^[A-Za-z0-9_-]{8,64}$/;
export const VISITOR_COOKIE = 'visitor_id';

/** The `visitor_id` cookie when it is well-formed, else null (a malformed cookie is ignored, not an error). */
export function visitorCookie(req: Request): string | null {
  const v = (req.cookies as Record<string, unknown> | undefined)?.[VISITOR_COOKIE];
  return typeof v === 'string' && VISITOR_ID.test(v) ? v : null;
}
