import { randomUUID } from 'node:crypto';
import { paymentSucceeded, signedEvent, type Gift } from '../helpers/gift-events';

/**
 * A small load generator for the cluster tests: a few concurrent loops, each doing guest reads,
 * signed-in reads and gifts (create-intent, then the processor's signed payment_intent.succeeded,
 * redelivered until acknowledged as Stripe does) through the balancer. Every failure is recorded
 * (a 5xx or a connection error) with when its request started and ended. Closed loops (each waits
 * for its answer): the cluster's tests count failures. The faults test (test/api/faults.test.ts)
 * paces its load instead (a tick every 250 ms, answers timed), since it measures answer times while
 * the database is away; both play the processor through test/helpers/gift-events.ts.
 */
export interface Failure {
  op: string;
  what: string;
  startedAt: number;
  endedAt: number;
}

export interface LoadTarget {
  url: string;
  slug: string;
  fundraiserId: string;
  bearer: string;
  webhookSecret: string;
}

/** A random documentation-range client address, so per-client limits never refuse the load. */
const clientIp = () => `198.51.100.${1 + Math.floor(Math.random() * 254)}`;

export class Load {
  readonly failures: Failure[] = [];
  /** Gifts whose payment the processor reported and the API acknowledged (2xx): each must end paid. */
  readonly paid: Gift[] = [];
  ok = 0;
  private running = false;
  private loops: Promise<void>[] = [];

  constructor(private readonly t: LoadTarget) {}

  private async call(op: string, path: string, init: RequestInit = {}): Promise<Response | null> {
    const startedAt = Date.now();
    try {
      const headers = { 'X-Forwarded-For': clientIp(), ...(init.headers as Record<string, string>) };
      const res = await fetch(`${this.t.url}${path}`, { ...init, headers, signal: AbortSignal.timeout(60_000) });
      const body = await res.text();
      if (res.status >= 500) this.failures.push({ op, what: `${res.status} ${body.slice(0, 200)}`, startedAt, endedAt: Date.now() });
      else this.ok += 1;
      return new Response(body, { status: res.status });
    } catch (err) {
      this.failures.push({ op, what: String((err as Error).cause ?? err), startedAt, endedAt: Date.now() });
      return null;
    }
  }

  private async gift(): Promise<void> {
    const res = await this.call('gift', '/api/v1/payments/create-intent', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ fundraiser_id: this.t.fundraiserId, amount_cents: 1_000 + Math.floor(Math.random() * 1000), donor_email: `load-${randomUUID().slice(0, 8)}@cluster.test` }),
    });
    if (res?.status !== 201) return;
    const g = ((await res.json()) as { data: Gift }).data;
    // The processor's delivery, retried until acknowledged (Stripe retries for days).
    const { payload, signature } = signedEvent('payment_intent.succeeded', paymentSucceeded(g), this.t.webhookSecret);
    const end = Date.now() + 60_000;
    while (Date.now() < end) {
      const ack = await this.call('webhook', '/api/v1/webhooks/stripe', { method: 'POST', headers: { 'Content-Type': 'application/json', 'Stripe-Signature': signature }, body: payload });
      if (ack && ack.status < 300) {
        this.paid.push(g);
        return;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  private async loop(k: number): Promise<void> {
    for (let i = k; this.running; i += 1) {
      const kind = i % 3;
      if (kind === 0) await this.call('guest read', `/api/v1/fundraisers/slug/${this.t.slug}`);
      else if (kind === 1) await this.call('signed-in read', '/api/v1/me', { headers: { Authorization: `Bearer ${this.t.bearer}` } });
      else await this.gift();
    }
  }

  start(loops = 4): this {
    this.running = true;
    this.loops = Array.from({ length: loops }, (_, k) => this.loop(k));
    return this;
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }
}
