import type { Knex } from 'knex';
import type { PaymentLookup } from '../../integrations/payments';

/**
 * Reads across the money modules' tables (a declared view: names them, writes none): the
 * payments still waiting for their processor's word, and the ledger's side of a day's
 * reconciliation.
 */

type Q = Knex | Knex.Transaction;

export interface PendingPayment {
  ref_kind: 'donation' | 'tip' | 'community_join';
  ref_id: string;
  lookup: PaymentLookup;
}

/**
 * Gifts, tips and community payments still pending (or failed: a later card may have
 * succeeded; or a join request approved, whose saved card is charged on approval; or one whose
 * card is being saved for the leaders' decision) that started between 3 days and `afterSeconds`
 * ago, each with the processor object to ask about: its Checkout Session, PaymentIntent,
 * subscription (its latest invoice) or SetupIntent.
 */
export async function pendingPayments(db: Q, afterSeconds: number, limit = 5000): Promise<PendingPayment[]> {
  const { rows } = await db.raw(
    `select * from (
       select 'donation' as ref_kind, id::text as ref_id,
              case when method = 'checkout' then 'checkout_session' else 'payment_intent' end as kind,
              case when method = 'checkout' then processor_checkout_session_id else processor_payment_intent_id end as pid,
              created_at as started_at
         from donations
        where status in ('pending', 'failed')
          and created_at <= now() - make_interval(secs => :after) and created_at > now() - interval '3 days'
       union all
       select 'tip', id::text,
              case when processor_checkout_session_id is not null then 'checkout_session' else 'payment_intent' end,
              coalesce(processor_checkout_session_id, processor_payment_intent_id), created_at
         from tips
        where status in ('pending', 'failed')
          and created_at <= now() - make_interval(secs => :after) and created_at > now() - interval '3 days'
       union all
       -- A request leaders approved is paid from the approval on (its saved card charged off session).
       select 'community_join', id::text, 'subscription', processor_subscription_id, coalesce(decided_at, created_at)
         from community_joins
        where status in ('pending_payment', 'approved', 'payment_failed')
          and coalesce(decided_at, created_at) <= now() - make_interval(secs => :after)
          and coalesce(decided_at, created_at) > now() - interval '3 days'
       union all
       -- A request whose card the processor saved, though the leaders never heard (its event lost).
       select 'community_join', id::text, 'setup_intent', processor_setup_intent_id, created_at
         from community_joins
        where status = 'requires_payment_method'
          and created_at <= now() - make_interval(secs => :after) and created_at > now() - interval '3 days'
     ) p
     where pid is not null
     order by started_at
     limit :limit`,
    { after: afterSeconds, limit },
  );
  return rows.map((r: { ref_kind: PendingPayment['ref_kind']; ref_id: string; kind: PaymentLookup['kind']; pid: string }) => ({
    ref_kind: r.ref_kind,
    ref_id: r.ref_id,
    lookup: { kind: r.kind, id: r.pid },
  }));
}

/** One key's two sides, as the comparison query answers it. */
export interface ComparedRow {
  ref: string | null;
  move: string;
  p_ids: string[] | null;
  p_amount: string | null;
  p_currency: string | null;
  l_groups: string[] | null;
  l_amount: string | null;
  l_currency: string | null;
}

/**
 * The day's keys (processor id and kind of movement) from both sides, each side summed over
 * everything known for the key (a refund recorded in the ledger just after midnight still
 * meets its balance transaction of the day before). The ledger's amount for a key is what its
 * groups moved on the processor balance (on the connected account's balance for payouts),
 * the processor's the net of its balance transactions (fees inside). Only rows that differ are
 * answered; `counts` says how many each side had that day. `payouts`: whether the processor's
 * list holds connected accounts' payouts (the sandbox's does; Stripe's platform list does not).
 */
export async function compareDay(db: Q, from: Date, to: Date, opts: { payouts: boolean }): Promise<{ rows: ComparedRow[]; processor: number; ledger: number }> {
  const b = { from, to, payouts: opts.payouts };
  const { rows } = await db.raw(
    `with day_keys as (
       select distinct ref, move from processor_balance_transactions
        where created_at >= :from and created_at < :to and ref is not null
       union
       select distinct processor_ref, processor_move from ledger_entries
        where created_at >= :from and created_at < :to and processor_ref is not null
          and (:payouts or processor_move <> 'payout')
     ),
     p as (
       select t.ref, t.move, array_agg(t.id order by t.id) as ids, sum(t.net_cents) as amount,
              string_agg(distinct t.currency, ',') as currency
         from processor_balance_transactions t join day_keys k on k.ref = t.ref and k.move = t.move
        group by t.ref, t.move
     ),
     l as (
       select e.processor_ref as ref, e.processor_move as move, array_agg(distinct e.group_id::text) as groups,
              sum(e.amount_cents) filter (where case when e.processor_move = 'payout' then e.account like 'asset:connected:%'
                                                   else e.account = 'asset:processor_balance' end) as amount,
              string_agg(distinct e.currency, ',') as currency
         from ledger_entries e join day_keys k on k.ref = e.processor_ref and k.move = e.processor_move
        group by e.processor_ref, e.processor_move
     )
     select coalesce(p.ref, l.ref) as ref, coalesce(p.move, l.move) as move,
            p.ids as p_ids, p.amount::text as p_amount, p.currency as p_currency,
            l.groups as l_groups, coalesce(l.amount, 0)::text as l_amount, l.currency as l_currency
       from p full join l on p.ref = l.ref and p.move = l.move
      where p.ref is null or l.ref is null or p.currency is distinct from l.currency or p.amount <> coalesce(l.amount, 0)
     union all
     -- Movements that name nothing a ledger group could record (a processor fee of its own, say).
     select null, t.move, array[t.id], t.net_cents::text, t.currency, null, null, null
       from processor_balance_transactions t
      where t.created_at >= :from and t.created_at < :to and t.ref is null
     order by 2, 1`,
    b,
  );
  const counts = await db.raw(
    `select (select count(*) from processor_balance_transactions where created_at >= :from and created_at < :to)::int as processor,
            (select count(distinct group_id) from ledger_entries where created_at >= :from and created_at < :to and processor_ref is not null)::int as ledger`,
    b,
  );
  return { rows, processor: counts.rows[0].processor, ledger: counts.rows[0].ledger };
}
