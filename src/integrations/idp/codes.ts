import { randomInt, timingSafeEqual } from 'node:crypto';
import type { Knex } from 'knex';
import { sha256Hex } from '../../infra/hash';
import * as repo from './local/local-idp.repo';

/** Wrong guesses before a code is burnt (the auth limiter also slows guessing per IP). */
export const MAX_CODE_ATTEMPTS = 5;

const hashCode = (userId: string, code: string) => sha256Hex(`${userId}:${code}`);

/** A fresh 6-digit code replacing any open one; returns the code for the mail. */
export async function issueCode(db: Knex | Knex.Transaction, userId: string, purpose: repo.CodePurpose, ttlSeconds: number) {
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
  await repo.replaceCode(db, userId, purpose, hashCode(userId, code), new Date(Date.now() + ttlSeconds * 1000));
  return code;
}

export type CodeCheck = 'ok' | 'mismatch' | 'expired';

/** Checks and, when right, consumes the open code (single use). */
export async function redeemCode(db: Knex | Knex.Transaction, userId: string, purpose: repo.CodePurpose, code: string): Promise<CodeCheck> {
  const row = await repo.latestOpenCode(db, userId, purpose);
  if (!row || !/^\d{6}$/.test(code)) return 'mismatch';
  const a = Buffer.from(row.code_hash, 'hex');
  const b = Buffer.from(hashCode(userId, code), 'hex');
  if (!timingSafeEqual(a, b)) {
    await repo.countFailedAttempt(db, row.id, MAX_CODE_ATTEMPTS);
    return 'mismatch';
  }
  if (row.expires_at.getTime() <= Date.now()) return 'expired';
  return (await repo.consumeCode(db, row.id)) ? 'ok' : 'mismatch';
}
