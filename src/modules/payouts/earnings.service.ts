import type { AppContext } from '../../context';
import type { Actor } from '../../http/actor';
import { campaignsHeldBy } from '../fundraisers';
import { connectedMoney } from './earnings.repo';
import { campaignMoney } from './gifts.reads';
import { accountsOf, type OwnerType } from './payouts.repo';

/** Days until a settled charge's funds are available at the processor (Stripe's standard US schedule). */
const AVAILABILITY_DAYS = 2;

/** The currency most of the holder's campaigns use: figures in different currencies are never added. */
function mainCurrency(campaigns: Array<{ currency: string }>): string {
  const n = new Map<string, number>();
  for (const c of campaigns) n.set(c.currency.toUpperCase(), (n.get(c.currency.toUpperCase()) ?? 0) + 1);
  return [...n.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]?.[0] ?? 'USD';
}

/** A campaign holder: a person (their own campaigns) or an organization (its campaigns). */
type Holder = { type: OwnerType; id: string };

async function holderFigures(ctx: AppContext, holder: Holder) {
  const campaigns = await campaignsHeldBy(ctx.db, holder);
  const currency = mainCurrency(campaigns);
  const mine = campaigns.filter((c) => c.currency.toUpperCase() === currency);
  const money = await campaignMoney(ctx.db, mine.map((c) => c.id), currency);
  const [account] = await accountsOf(ctx.db, holder.type, holder.id);
  return { currency, campaigns: mine, money, account: account?.status === 'active' ? account : undefined };
}

const personal = (actor: Actor): Holder => ({ type: 'user', id: actor.userId });

/**
 * Earnings from the ledger: total = gross raised (gifts less refunds and disputes), fees =
 * processor and platform fees, available = transferred to the connected account and not yet
 * paid out, withdrawn = paid out (net of failed payouts), pending = owed but not transferred
 * yet. Without an active connected account (spec): available 0, withdrawn 0, pending = total.
 */
export async function earnings(ctx: AppContext, actor: Actor) {
  return holderEarnings(ctx, personal(actor));
}

/** Earnings of an organization's campaigns (org admin's payouts read), by the same rules. */
export async function holderEarnings(ctx: AppContext, holder: Holder) {
  const f = await holderFigures(ctx, holder);
  const total = f.money.reduce((s, m) => s + m.raised, 0);
  const fees = f.money.reduce((s, m) => s + m.fees, 0);
  if (!f.account) return { total_cents: total, fees_cents: fees, available_cents: 0, pending_cents: total, withdrawn_cents: 0, currency: f.currency };
  const c = await connectedMoney(ctx.db, f.account.id, f.currency);
  const owed = f.money.reduce((s, m) => s + m.owed, 0);
  return {
    total_cents: total,
    fees_cents: fees,
    available_cents: c.available,
    pending_cents: Math.max(0, owed),
    withdrawn_cents: c.withdrawn,
    currency: f.currency,
  };
}

const addDays = (d: Date, n: number) => new Date(new Date(d).getTime() + n * 86_400_000).toISOString().slice(0, 10);

/**
 * Per campaign with money pending: what is not in the connected account yet and when it is
 * expected there. Without an active account everything raised is pending and `available_on` is
 * null (it waits for onboarding); with one, it is the processor's availability date of the
 * newest gift not transferred yet.
 */
export async function pendingBreakdown(ctx: AppContext, actor: Actor) {
  const f = await holderFigures(ctx, personal(actor));
  const titles = new Map(f.campaigns.map((c) => [c.id, c.title]));
  return f.money
    .map((m) => ({
      fundraiser_id: m.fundraiser_id,
      title: titles.get(m.fundraiser_id) ?? '',
      pending_cents: f.account ? Math.max(0, m.owed) : m.raised,
      available_on: f.account && m.last_untransferred_paid_at ? addDays(m.last_untransferred_paid_at, AVAILABILITY_DAYS) : null,
    }))
    .filter((r) => r.pending_cents > 0);
}
