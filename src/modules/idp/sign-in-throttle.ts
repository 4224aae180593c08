import type { Knex } from 'knex';
import { ApiError } from '../../http/errors';
import { normalizeEmail } from '../../infra/email';
import { sha256Hex } from '../../infra/hash';
import { IdpError } from '../../integrations/idp/port';

/**
 * Per-account sign-in throttle, as Cognito does (docs/decisions/0019-per-account-sign-in-throttle.md): after FREE_FAILURES failed
 * sign-ins in a row for one address (any IP, any sign-in route), each further attempt within a
 * delay of 1 s, doubling with each failure up to 15 minutes, is refused, the right password
 * included. A success resets the count; a streak untouched for a day is forgotten. Kept in
 * Postgres: restarts and other instances see it.
 */
export const FREE_FAILURES = 5;
export const MAX_DELAY_S = 15 * 60;
export const THROTTLE_MESSAGE = 'Too many authentication attempts, please try again later.';

const keyOf = (email: string) => sha256Hex(normalizeEmail(email));

/** The 429 of a throttled sign-in: the auth limiter's body, `{ error, retryAfter }`, with Retry-After. */
export class SignInThrottled extends ApiError {
  constructor(readonly retryAfter: number) {
    super(429, THROTTLE_MESSAGE, THROTTLE_MESSAGE, { retryAfter });
  }

  override body(): Record<string, unknown> {
    return { error: this.error, retryAfter: this.retryAfter };
  }
}

/** Seconds until `email` may try again, or 0 when it may now. */
export async function throttledFor(db: Knex, email: string): Promise<number> {
  const row = (await db.raw(
    `select ceil(extract(epoch from blocked_until - now()))::int as wait from sign_in_throttle
      where account_key = ? and blocked_until > now()`,
    [keyOf(email)],
  )).rows[0] as { wait: number } | undefined;
  return row ? Math.max(1, row.wait) : 0;
}

/** Refuses (429) while the address is in its delay. */
export async function assertNotThrottled(db: Knex, email: string): Promise<void> {
  const wait = await throttledFor(db, email);
  if (wait > 0) throw new SignInThrottled(wait);
}

/** One more failure in a row; from the FREE_FAILURES-th on, the next attempt waits 2^(n-5) s (at most 15 min). */
export async function recordSignInFailure(db: Knex, email: string): Promise<void> {
  await db.raw(
    `insert into sign_in_throttle as t (account_key, failures, blocked_until, updated_at)
     values (?, 1, case when 1 >= ${FREE_FAILURES} then now() + interval '1 second' end, now())
     on conflict (account_key) do update set
       failures = t.failures + 1,
       blocked_until = case when t.failures + 1 >= ${FREE_FAILURES}
         then now() + least(${MAX_DELAY_S}, power(2, least(t.failures + 1 - ${FREE_FAILURES}, 20))) * interval '1 second' end,
       updated_at = now()`,
    [keyOf(email)],
  );
  if (Math.random() < 0.01) await pruneSignInThrottle(db);
}

/** A streak untouched this long is forgotten (the table would otherwise keep every sprayed address). */
export const FORGET_AFTER_HOURS = 24;

/** Drops forgotten streaks, a bounded batch at a time; called now and then by recordSignInFailure. */
export async function pruneSignInThrottle(db: Knex): Promise<number> {
  const r = await db.raw(
    `delete from sign_in_throttle where account_key in (
       select account_key from sign_in_throttle where updated_at < now() - make_interval(hours => ?) limit 1000)`,
    [FORGET_AFTER_HOURS],
  );
  return r.rowCount ?? 0;
}

/** A successful sign-in: the count starts again. */
export async function resetSignInFailures(db: Knex, email: string): Promise<void> {
  await db.raw('delete from sign_in_throttle where account_key = ?', [keyOf(email)]);
}

/**
 * One password attempt under the throttle, the same on every sign-in route (POST /idp/signin and
 * the Cognito endpoint's InitiateAuth): refused while the address is in its delay, before
 * `beforeAttempt` (the CAPTCHA check) and the password are looked at; a wrong password counts a
 * failure; a right one, a further challenge included, starts the count again.
 */
export async function throttledPasswordAttempt<T>(db: Knex, email: string, attempt: () => Promise<T>, beforeAttempt?: () => Promise<void>): Promise<T> {
  await assertNotThrottled(db, email);
  await beforeAttempt?.();
  let result: T;
  try {
    result = await attempt();
  } catch (err) {
    if (err instanceof IdpError && err.kind === 'not_authorized') await recordSignInFailure(db, email);
    throw err;
  }
  await resetSignInFailures(db, email);
  return result;
}
