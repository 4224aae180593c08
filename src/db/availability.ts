/** Seconds a client is told to wait (Retry-After) while the database is unreachable or too slow. */
export const DB_RETRY_AFTER_S = 5;

// Node socket errors seen when Postgres is stopped, restarted or unreachable.
const NET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOTFOUND']);

// pg and knex messages for a lost, hung or never-made connection (they carry no code).
const MESSAGES = [
  /Connection terminated/i,
  /Query read timeout/i,
  /timeout exceeded when trying to connect/i,
  /Client has encountered a connection error/i,
  /Client was closed and is not queryable/i,
  /Connection ended unexpectedly/i,
  /the database system is (starting up|shutting down|in recovery mode)/i,
  /terminating connection/i,
];

/**
 * True when `err` says the database is away or too slow rather than that the request is wrong:
 * socket errors, SQLSTATE 57P01-57P03 (admin shutdown, crash shutdown, cannot connect now),
 * class 08 (connection exception), 53300 (too many connections), 57014 (statement timeout),
 * knex's pool acquire timeout and pg's client-side read timeout.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const e = err as { code?: unknown; name?: unknown; message?: unknown };
  const code = typeof e.code === 'string' ? e.code : '';
  if (NET_CODES.has(code)) return true;
  if (/^57P0[123]$/.test(code) || /^08[0-9A-Z]{3}$/.test(code) || code === '53300' || code === '57014') return true;
  if (e.name === 'KnexTimeoutError') return true;
  const message = typeof e.message === 'string' ? e.message : '';
  return MESSAGES.some((re) => re.test(message));
}
