import { z } from 'zod';
import type { AppContext } from '../../context';
import type { Actor } from '../../http/actor';
import { notFound } from '../../http/errors';
import { readable } from '../fundraisers';
import { withdrawalsFor } from '../payouts';
import { milestoneCounts } from './milestones.repo';

export const fundingStats = z
  .object({
    data: z.object({
      fundraiser_id: z.string(),
      is_project: z.boolean(),
      currency: z.string(),
      raised_cents: z.number().int().describe("the campaign's raised total"),
      allocated_cents: z.number().int().describe('the sum of its milestones\' amounts'),
      unallocated_cents: z.number().int().describe('raised but not allocated to a milestone (never below zero)'),
      disbursed_cents: z.number().int().describe("the campaign's shares of its holder's paid payouts"),
      pending_disbursement_cents: z.number().int().describe('shares of payouts still pending or in transit'),
      disbursement_count: z.number().int().describe('paid payouts that carried part of this campaign'),
      milestones: z.object({ total: z.number().int(), planned: z.number().int(), in_progress: z.number().int(), done: z.number().int() }),
    }),
  })
  .describe('every amount and count is 0 for a campaign that is not a project');

/**
 * A project's money at a glance: what was raised, how much of it the owner allocated to
 * milestones, what left through payouts (withdrawals, in the campaign's currency), and where the
 * milestones stand. Non-projects answer zeros (200: the 500 the interface shows for them is a defect, not a feature).
 */
export async function projectFundingStats(ctx: AppContext, actor: Actor | null, fundraiserId: string): Promise<z.infer<typeof fundingStats>> {
  const f = await readable(ctx, actor, { id: fundraiserId });
  if (f.deleted_at) throw notFound('Fundraiser');
  const currency = String(f.currency).toUpperCase();
  const zero = { total: 0, planned: 0, in_progress: 0, done: 0 };
  if (!f.is_project) {
    return {
      data: {
        fundraiser_id: f.id, is_project: false, currency, raised_cents: 0, allocated_cents: 0, unallocated_cents: 0,
        disbursed_cents: 0, pending_disbursement_cents: 0, disbursement_count: 0, milestones: zero,
      },
    };
  }
  const [counts, withdrawals] = await Promise.all([milestoneCounts(ctx.db, f.id), withdrawalsFor(ctx.db, f.id)]);
  const ours = withdrawals.filter((w) => w.currency === currency);
  const paid = ours.filter((w) => w.status === 'paid');
  const sum = (ws: typeof ours) => ws.reduce((s, w) => s + w.amount_cents, 0);
  const raised = Number(f.raised_cents);
  return {
    data: {
      fundraiser_id: f.id,
      is_project: true,
      currency,
      raised_cents: raised,
      allocated_cents: counts.allocated_cents,
      unallocated_cents: Math.max(0, raised - counts.allocated_cents),
      disbursed_cents: sum(paid),
      pending_disbursement_cents: sum(ours.filter((w) => w.status === 'pending' || w.status === 'in_transit')),
      disbursement_count: paid.length,
      milestones: { total: counts.total, planned: counts.planned, in_progress: counts.in_progress, done: counts.done },
    },
  };
}
