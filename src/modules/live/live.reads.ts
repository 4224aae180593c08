import type { Db } from '../../db/knex';
import { canRead, findById, percentageFunded, totalsOf, type FundraiserRow } from '../fundraisers';
import type { Actor } from '../../http/actor';

/** The `progress` event's data: the campaign's money figures as its stats read shows them. */
export interface Progress {
  total_raised_cents: number;
  donation_count: number;
  donor_count: number;
  goal_amount_cents: number;
  percentage_funded: number;
  recurring_donor_count: number;
}

export interface CampaignState {
  row: FundraiserRow;
  progress: Progress;
}

/** Row and progress of a campaign, read on the primary (a notification means it committed there). */
export async function campaignState(db: Db, id: string): Promise<CampaignState | null> {
  const row = await findById(db, id);
  if (!row) return null;
  const t = await totalsOf(db, id);
  const goal = Number(row.goal_amount_cents);
  return {
    row,
    progress: {
      total_raised_cents: t.total_raised_cents,
      donation_count: t.donation_count,
      donor_count: t.donor_count,
      goal_amount_cents: goal,
      percentage_funded: percentageFunded(t.total_raised_cents, goal),
      recurring_donor_count: Number(row.recurring_donor_count ?? 0),
    },
  };
}

/** Why a viewer's stream closes, or null while it stays open: ended, or no longer readable by them. */
export function closingReason(state: CampaignState | null, actor: Actor | null): 'ended' | 'unavailable' | null {
  if (!state || !canRead(state.row, actor)) return 'unavailable';
  return state.row.status === 'ended' ? 'ended' : null;
}

/** One server-sent event (JSON never holds a raw newline, so `data` is one line). */
export function sseEvent(event: string, data: unknown, id?: string): string {
  return `${id ? `id: ${id}\n` : ''}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}
