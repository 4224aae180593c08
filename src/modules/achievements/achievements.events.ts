import { on, type Subscriber } from '../../events';
import { findById } from '../fundraisers';
import { earn } from './achievements.service';

/** Donor counts a campaign holder is recognised for (each kind once per holder). */
const DONOR_MILESTONES = [
  { at: 10, kind: 'donors_10' },
  { at: 100, kind: 'donors_100' },
] as const;

/**
 * Achievements are earned on the events that prove them. `earned_at` is the event's time, so a
 * late or retried job dates the achievement when it happened; `earn` keeps one per user and kind.
 */
export const achievementSubscribers: Subscriber[] = [
  on('donation.paid', 'achievements.first_gift', async (_ctx, p, trx, meta) => {
    if (!p.donor_user_id) return;
    // An anonymous gift must not be traceable to its donor: the achievement stays the donor's
    // own (hidden from others, no campaign named).
    await earn(trx, p.donor_user_id, 'first_gift', {
      fundraiserId: p.anonymous ? null : p.fundraiser_id,
      public: !p.anonymous,
      at: meta.createdAt,
    });
  }),
  on('donation.paid', 'achievements.donor_milestones', async (_ctx, p, trx, meta) => {
    // The counter moved in the gift's own transaction, which committed before this job ran.
    const f = await findById(trx, p.fundraiser_id);
    if (!f) return;
    for (const m of DONOR_MILESTONES) {
      if (Number(f.donor_count) >= m.at) await earn(trx, p.holder_user_id, m.kind, { fundraiserId: f.id, at: meta.createdAt });
    }
  }),
  on('fundraiser.goal_reached', 'achievements.goal_reached', async (_ctx, p, trx, meta) => {
    await earn(trx, p.holder_user_id, 'goal_reached', { fundraiserId: p.fundraiser_id, at: meta.createdAt });
  }),
  on('fundraiser.published', 'achievements.first_campaign_live', async (_ctx, p, trx, meta) => {
    await earn(trx, p.owner_user_id, 'first_campaign_live', { fundraiserId: p.fundraiser_id, at: meta.createdAt });
  }),
  on('update.posted', 'achievements.first_update', async (_ctx, p, trx, meta) => {
    await earn(trx, p.author_user_id, 'first_update', { fundraiserId: p.fundraiser_id, at: meta.createdAt });
  }),
];
