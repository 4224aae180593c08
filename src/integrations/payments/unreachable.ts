/**
 * Whether a processor call failed because the processor could not be reached or could not answer
 * now (connection refused or reset, a timeout, its rate limit, its own 5xx), as opposed to refusing
 * the request. The first is an outage to retry later (503); the second is an answer.
 * stripe-node marks these with its error `type`; a network error below it carries a system `code`.
 */
import { isDatabaseUnavailable } from '../../db/availability';

const UNREACHABLE_TYPES = /^Stripe(Connection|RateLimit|API)Error$/;
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'EPIPE']);

export function processorUnreachable(err: unknown): boolean {
  const e = err as { type?: unknown; code?: unknown } | null;
  if (!e || typeof e !== 'object') return false;
  return (typeof e.type === 'string' && UNREACHABLE_TYPES.test(e.type)) || (typeof e.code === 'string' && NETWORK_CODES.has(e.code));
}

/**
 * Whether a processor call failed because this service's own database did: the sandbox processor
 * keeps its objects there, so while the database is away its calls fail with the database's
 * errors. That outage is the database's (503 DATABASE_UNAVAILABLE with Retry-After), not the
 * processor's. stripe-node's errors always carry a `type`, so they are never taken for it.
 */
export function processorStoreUnavailable(err: unknown): boolean {
  const type = (err as { type?: unknown } | null)?.type;
  return (typeof type !== 'string' || !type) && isDatabaseUnavailable(err);
}
