import type { AppContext } from '../../context';
import { normalizeEmail } from '../../infra/email';
import { sha256Hex } from '../../infra/hash';
import { MemoryRiskStore, ResilientRiskStore, type RiskStore } from './risk-store';

/**
 * Adaptive CAPTCHA thresholds (documented in the OpenAPI description of sign-up / sign-in):
 * failures are counted for 15 minutes after the latest one; risk is elevated when the address
 * has 3 or more recent failures, or the client IP (IPv6: its /56) has 10 or more.
 */
export const RISK_WINDOW_MS = 15 * 60_000;
export const EMAIL_FAILURE_THRESHOLD = 3;
export const IP_FAILURE_THRESHOLD = 10;

export type RiskReason = 'too_many_failures' | 'too_many_attempts_from_ip';

export interface RiskAssessment {
  elevated: boolean;
  reason: RiskReason | null;
  emailFailures: number;
  ipFailures: number;
}

export interface RiskSubject {
  ip: string;
  email?: string;
}

// One in-process store per context when Redis is not configured (tests get fresh buckets per app).
const memoryStores = new WeakMap<AppContext, MemoryRiskStore>();
const redisStores = new WeakMap<object, ResilientRiskStore>();

export function riskStoreFor(ctx: AppContext): RiskStore {
  if (ctx.redis) {
    let s = redisStores.get(ctx.redis);
    if (!s) redisStores.set(ctx.redis, (s = new ResilientRiskStore(ctx.redis)));
    return s;
  }
  let m = memoryStores.get(ctx);
  if (!m) memoryStores.set(ctx, (m = new MemoryRiskStore()));
  return m;
}

/** Addresses are hashed so the store never holds them in clear; matched case-insensitively. */
export function riskKeys(prefix: string, subject: RiskSubject): { ip: string; email: string | null } {
  const email = subject.email && normalizeEmail(subject.email);
  return {
    ip: `${prefix}risk:ip:${subject.ip}`,
    email: email ? `${prefix}risk:email:${sha256Hex(email)}` : null,
  };
}

/** Decides from the two counters; the address reason wins when both are over. */
export function decide(emailFailures: number, ipFailures: number): RiskAssessment {
  const reason: RiskReason | null =
    emailFailures >= EMAIL_FAILURE_THRESHOLD
      ? 'too_many_failures'
      : ipFailures >= IP_FAILURE_THRESHOLD
        ? 'too_many_attempts_from_ip'
        : null;
  return { elevated: reason !== null, reason, emailFailures, ipFailures };
}

export class RiskCounter {
  constructor(
    private readonly store: RiskStore,
    private readonly prefix = '',
    private readonly windowMs = RISK_WINDOW_MS,
  ) {}

  async assess(subject: RiskSubject): Promise<RiskAssessment> {
    const keys = riskKeys(this.prefix, subject);
    const [ipFailures, emailFailures] = await Promise.all([
      this.store.get(keys.ip),
      keys.email ? this.store.get(keys.email) : Promise.resolve(0),
    ]);
    return decide(emailFailures, ipFailures);
  }

  async recordFailure(subject: RiskSubject): Promise<void> {
    const keys = riskKeys(this.prefix, subject);
    await Promise.all([
      this.store.increment(keys.ip, this.windowMs),
      keys.email ? this.store.increment(keys.email, this.windowMs) : Promise.resolve(0),
    ]);
  }

  /** Only the address is cleared: a success on one account says nothing about the rest of the IP's attempts. */
  async clear(subject: RiskSubject): Promise<void> {
    const keys = riskKeys(this.prefix, subject);
    if (keys.email) await this.store.reset(keys.email);
  }
}

export function riskCounterFor(ctx: AppContext): RiskCounter {
  return new RiskCounter(riskStoreFor(ctx), ctx.config.RATE_LIMIT_PREFIX);
}
