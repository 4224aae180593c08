/**
 * Whether a processor call failed because the processor could not be reached or could not answer
 * now (connection refused or reset, a timeout, its rate limit, its own 5xx), as opposed to refusing
 * the request. The first is an outage to retry later (503); the second is an answer.
 * stripe-node marks these with its error `type`; a network error below it carries a system `code`.
 */
const UNREACHABLE_TYPES = /^Stripe(Connection|RateLimit|API)Error$/;
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'EPIPE']);

export function processorUnreachable(err: unknown): boolean {
  const e = err as { type?: unknown; code?: unknown } | null;
  if (!e || typeof e !== 'object') return false;
  return (typeof e.type === 'string' && UNREACHABLE_TYPES.test(e.type)) || (typeof e.code === 'string' && NETWORK_CODES.has(e.code));
}
