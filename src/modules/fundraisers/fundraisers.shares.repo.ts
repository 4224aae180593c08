import type { Knex } from 'knex';
import type { Db } from '../../db/knex';
import { SHARE_CHANNELS, type ShareChannel } from './fundraisers.schemas';

type Q = Db | Knex.Transaction;

// Shares of a campaign, the visits they bring and what those visits give (the share-impact reads).

export async function recordShare(trx: Knex.Transaction, id: string, userId: string | null, channel: ShareChannel): Promise<number> {
  await trx('fundraiser_shares').insert({ fundraiser_id: id, user_id: userId, channel });
  const [row] = await trx('fundraisers').where({ id }).increment('shares_count', 1).returning('shares_count');
  return Number(row.shares_count);
}

export interface ChannelStats {
  shares: number;
  visits: number;
  donations: number;
  raised_cents: number;
}

const zero = (): ChannelStats => ({ shares: 0, visits: 0, donations: 0, raised_cents: 0 });

/** Paid gifts attributed to shared links, per channel (null: channel unknown); the referrals module counts them. */
export type AttributedGifts = Array<{ channel: string | null; donations: number; raised_cents: number }>;

/** A visit that arrived through a shared link (POST /referrals/clicks records one per click). */
export async function recordShareVisit(
  trx: Q,
  v: { fundraiser_id: string; channel: string | null; sharer_user_id: string | null; via_endorser: boolean },
): Promise<void> {
  await trx('fundraiser_share_visits').insert(v);
}

/**
 * Per-channel shares and visits through shared links, with the paid gifts those links drove
 * (`gifts`, from the referrals module: it owns the attribution).
 */
export async function shareChannelStats(db: Q, id: string, gifts: AttributedGifts = []) {
  const [shares, visits] = await Promise.all([
    db('fundraiser_shares').where({ fundraiser_id: id }).groupBy('channel').select('channel').count<{ channel: string; n: string }[]>({ n: '*' }),
    db('fundraiser_share_visits').where({ fundraiser_id: id }).groupBy('channel').select('channel').count<{ channel: string | null; n: string }[]>({ n: '*' }),
  ]);
  const channels = Object.fromEntries(SHARE_CHANNELS.map((c) => [c, zero()])) as Record<ShareChannel, ChannelStats>;
  const unattributed = zero();
  const bucket = (c: string | null) => (c === null ? unattributed : channels[(SHARE_CHANNELS as readonly string[]).includes(c) ? (c as ShareChannel) : 'other']);
  for (const s of shares) bucket(s.channel).shares += Number(s.n);
  for (const v of visits) bucket(v.channel).visits += Number(v.n);
  for (const g of gifts) {
    bucket(g.channel).donations += g.donations;
    bucket(g.channel).raised_cents += g.raised_cents;
  }
  const total = zero();
  for (const s of [...Object.values(channels), unattributed]) {
    total.shares += s.shares;
    total.visits += s.visits;
    total.donations += s.donations;
    total.raised_cents += s.raised_cents;
  }
  return { total, channels, unattributed };
}

/** All-time visits through shared links and through endorsers' links; `gifts`: paid non-self-referred gifts they drove. */
export async function shareImpact(db: Q, id: string, gifts: { donations: number; raised_cents: number } = { donations: 0, raised_cents: 0 }) {
  const [r] = await db('fundraiser_share_visits')
    .where({ fundraiser_id: id })
    .select(db.raw('count(*)::int as visits'), db.raw('count(*) filter (where via_endorser)::int as endorser_visits'));
  return { visits: Number(r?.visits ?? 0), endorser_visits: Number(r?.endorser_visits ?? 0), donations: gifts.donations, raised_cents: gifts.raised_cents };
}

// ---- staff review queue -------------------------------------------------------------------
