import request from 'supertest';
import type { TestApp } from '../helpers/app';

/** Helpers for the monthly-gift tests: start one through POST /donations and pay it on the sandbox's checkout page. */

export const DAY = 86_400;
/** A year and a day: twelve monthly renewals of a gift started before the move, whatever the month lengths. */
export const YEAR = 366 * DAY;

export async function startMonthly(t: TestApp, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  const res = await request(t.app).post('/api/v1/donations').set(headers).send({ interval: 'month', ...body });
  expect(res.status).toBe(201);
  return res.body.data as { donation_id: string; url: string; status: 'pending'; recurring_gift_id: string };
}

/** Presses "Pay" on the sandbox's hosted page: its events reach the webhook over HTTP before the answer. */
export async function pay(t: TestApp, url: string) {
  const id = url.split('/').pop()!;
  const res = await request(t.app).post(`/sandbox/checkout/${id}/complete`).type('form').send('');
  expect(res.status).toBe(303);
}

export async function advance(t: TestApp, seconds: number) {
  const res = await request(t.app).post('/sandbox/clock/advance').send({ seconds });
  expect(res.status).toBe(200);
  expect(res.body.data.webhook_delivered).toBe(true);
  return res.body.data as { now: string; renewals: { charged: number; declined: number; canceled: number; skipped: number } };
}

export const giftsOf = (t: TestApp, giftId: string) => t.ctx.db('donations').where({ recurring_gift_id: giftId }).orderBy('created_at');
export const giftRow = (t: TestApp, giftId: string) => t.ctx.db('recurring_gifts').where({ id: giftId }).first();

/** Fisher-Yates over a seeded generator: a storm that is random-looking and the same on every run. */
export function shuffled<T>(items: T[], seed = 42): T[] {
  const out = [...items];
  let s = seed;
  const rnd = () => ((s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  for (let i = out.length - 1; i > 0; i -= 1) {
    const j = Math.floor(rnd() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
