import request from 'supertest';
import { checkLedger } from '../../src/modules/integrity';
import { closeDb, createTestApp, testDb } from '../helpers/app';
import { createUser } from '../helpers/auth';
import { createFundraiser } from '../helpers/fundraisers';
import { deliver, stripeEvent } from '../helpers/stripe';
import { chargeRefunded, dispute, piSucceeded, startGift, type Gift } from './donations-fixtures';

/**
 * Many gifts to one campaign settling at once (docs/decisions/0023-campaign-counters-in-shards.md):
 * no campaign-row lock orders them, so the counters, the distinct donor count and the goal must
 * come out exact from the shard rows alone. Two app instances (two pools) deliver, as two processes would.
 */

const t = createTestApp();
const other = createTestApp();
afterAll(closeDb);

type Event = ReturnType<typeof stripeEvent>;

function shuffle<T>(xs: T[], seed: number): T[] {
  let s = seed >>> 0;
  const rand = () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i -= 1) {
    const j = Math.floor(rand() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}

async function storm(events: Event[], width: number): Promise<number[]> {
  const statuses: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async (_, w) => {
      while (next < events.length) statuses.push((await deliver(w % 2 ? other : t, events[next++]!)).status);
    }),
  );
  return statuses;
}

const counters = (id: string) => testDb()('fundraiser_counters').where({ id }).first('raised_cents', 'tips_cents', 'donation_count', 'donor_count');
const goalEvents = async (id: string) =>
  (await testDb()('events').where({ type: 'fundraiser.goal_reached' }).whereRaw(`payload->>'fundraiser_id' = ?`, [id])).length;

async function eventually(check: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('one campaign taking many gifts at once', () => {
  test('when 30 gifts settle in parallel with duplicates, then refunds and disputes follow, then counters, donors and the goal are exact and check-ledger is clean', async () => {
    const owner = await createUser(testDb());
    // The 30 gifts raise 30 x 1,000 + 29 x 30 x 7 / 2 = 33,045; the goal falls between, so some gift in flight reaches it.
    const f = await createFundraiser(testDb(), owner.id, { goal_amount_cents: 25_000 });
    const gifts: Array<{ g: Gift; donor: string }> = [];
    for (let i = 0; i < 30; i += 1) {
      // 12 donors: 11 give two or three times, the last gives once (its refund takes it out of the donor count).
      const donor = i < 29 ? `donor${i % 11}@one-campaign.test` : 'solo@one-campaign.test';
      gifts.push({ g: await startGift(t, f.id, 1_000 + 7 * i, i % 5 === 0 ? 100 : 0, { donor_email: donor }), donor });
    }
    const successes = gifts.map(({ g }) => piSucceeded(g));
    const stream = shuffle([...successes, ...successes.filter((_, i) => i % 3 === 0)], 35);
    expect(new Set(await storm(stream, 12))).toEqual(new Set([200]));

    const raised = gifts.reduce((s, { g }) => s + g.amount_cents, 0);
    const tips = gifts.reduce((s, { g }) => s + g.tip_cents, 0);
    expect(await counters(f.id)).toEqual({ raised_cents: raised, tips_cents: tips, donation_count: 30, donor_count: 12 });
    // Spread, not one row: gifts settled side by side went to more than one shard.
    const shards = await testDb()('fundraiser_counter_shards').where({ fundraiser_id: f.id }).count({ n: '*' });
    expect(Number(shards[0]!.n)).toBeGreaterThan(1);
    // A guest read shows every gift.
    const read = await request(t.app).get(`/api/v1/fundraisers/${f.id}`);
    expect(read.status).toBe(200);

    // The goal: stamped, and announced once, whichever gifts reached it together (the after-commit recheck may still run).
    await eventually(async () => (await goalEvents(f.id)) >= 1);
    await new Promise((r) => setTimeout(r, 300));
    expect(await goalEvents(f.id)).toBe(1);
    expect((await testDb()('fundraisers').where({ id: f.id }).first('goal_reached_at')).goal_reached_at).not.toBeNull();

    // Refunds and disputes in parallel: the single gift's donor fully refunded, a partial refund, a dispute opened then lost, one won.
    const only = gifts.find(({ donor }) => donor.startsWith('solo@'))!.g;
    const partly = gifts[0]!.g;
    const lost = gifts[1]!.g;
    const won = gifts[2]!.g;
    const reductions = [
      chargeRefunded(only, only.amount_cents + only.tip_cents),
      chargeRefunded(partly, 400),
      dispute(lost, 'charge.dispute.created', 'needs_response'),
      dispute(won, 'charge.dispute.created', 'needs_response'),
      ...successes.slice(0, 6),
    ];
    expect(new Set(await storm(shuffle(reductions, 7), 8))).toEqual(new Set([200]));
    expect(new Set(await storm([dispute(lost, 'charge.dispute.closed', 'lost'), dispute(won, 'charge.dispute.closed', 'won')], 2))).toEqual(new Set([200]));

    const taken = only.amount_cents + 400 + lost.amount_cents;
    const tipsTaken = only.tip_cents + lost.tip_cents;
    expect(await counters(f.id)).toEqual({ raised_cents: raised - taken, tips_cents: tips - tipsTaken, donation_count: 29, donor_count: 11 });
    expect(await goalEvents(f.id)).toBe(1);
    expect(await checkLedger(testDb())).toEqual([]);
  }, 120_000);

  test('when two gifts that together reach the goal settle at the same moment, then the goal is reached once', async () => {
    const owner = await createUser(testDb());
    for (let round = 0; round < 5; round += 1) {
      const f = await createFundraiser(testDb(), owner.id, { goal_amount_cents: 2_000 });
      const a = await startGift(t, f.id, 1_000, 0, { donor_email: `a${round}@goal.test` });
      const b = await startGift(t, f.id, 1_000, 0, { donor_email: `b${round}@goal.test` });
      const answers = await Promise.all([deliver(t, piSucceeded(a)), deliver(other, piSucceeded(b))]);
      expect(answers.map((r) => r.status)).toEqual([200, 200]);
      await eventually(async () => (await goalEvents(f.id)) >= 1);
      await new Promise((r) => setTimeout(r, 200));
      expect(await goalEvents(f.id)).toBe(1);
    }
    expect(await checkLedger(testDb())).toEqual([]);
  }, 120_000);
});
