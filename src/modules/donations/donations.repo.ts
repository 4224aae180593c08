import type { Knex } from 'knex';
import { queryRows, type Db } from '../../db/knex';

type Q = Db | Knex.Transaction;

export type DonationStatus = 'pending' | 'paid' | 'failed' | 'refunded';

export interface DonationRow {
  id: string;
  fundraiser_id: string;
  donor_user_id: string | null;
  donor_email: string | null;
  donor_name: string | null;
  anonymous: boolean;
  message: string | null;
  /** The `ref` the donor came with (a profile slug or share code): the referrals module attributes the gift by it. */
  referral_code: string | null;
  amount_cents: number;
  tip_cents: number;
  currency: string;
  status: DonationStatus;
  /** `subscription`: a renewal of a monthly gift (its first payment is a checkout). */
  method: 'payment_intent' | 'checkout' | 'subscription';
  processor_payment_intent_id: string | null;
  processor_checkout_session_id: string | null;
  processor_charge_id: string | null;
  refunded_cents: number;
  disputed_cents: number;
  processor_fee_cents: number;
  platform_fee_cents: number;
  dispute_status: 'open' | 'won' | 'lost' | null;
  /** The processor's dispute fees recorded in the ledger, and how many dispute balance transactions they cover. */
  dispute_fee_cents: number;
  dispute_fee_txns: number;
  receipt_id: string;
  locale: string;
  /** The monthly gift this payment belongs to; null for a one-time gift. */
  recurring_gift_id: string | null;
  /** The invoice a monthly gift's payment came from. */
  processor_invoice_id: string | null;
  paid_at: Date | null;
  created_at: Date;
}

const MONEY = ['amount_cents', 'tip_cents', 'refunded_cents', 'disputed_cents', 'processor_fee_cents', 'platform_fee_cents', 'dispute_fee_cents', 'dispute_fee_txns'] as const;

/** pg answers bigint as text; every money column is a safe integer of cents here. */
function toRow(r: Record<string, any> | undefined): DonationRow | undefined {
  if (!r) return undefined;
  // pg made this object for this call alone: converted where it is, not copied.
  for (const k of MONEY) if (k in r) r[k] = Number(r[k]);
  return r as DonationRow;
}

export async function insertDonation(db: Q, row: Record<string, unknown>): Promise<DonationRow> {
  const [r] = await db('donations').insert(row).returning('*');
  return toRow(r)!;
}

export async function setProcessorIds(db: Q, id: string, ids: { pi?: string | null; cs?: string | null }): Promise<void> {
  const patch: Record<string, unknown> = { updated_at: db.fn.now() };
  if (ids.pi) patch.processor_payment_intent_id = ids.pi;
  if (ids.cs) patch.processor_checkout_session_id = ids.cs;
  await db('donations').where({ id }).update(patch);
}

/** Records the PaymentIntent behind a checkout once the processor names it (never overwrites). */
export async function notePaymentIntent(db: Q, id: string, pi: string): Promise<void> {
  await db('donations').where({ id }).whereNull('processor_payment_intent_id').update({ processor_payment_intent_id: pi });
}

/** The invoice that pays a monthly gift's first payment (the gift the checkout opened). */
export async function setProcessorInvoice(db: Q, id: string, invoiceId: string): Promise<void> {
  await db('donations').where({ id }).update({ processor_invoice_id: invoiceId });
}

// Fixed texts for the statements every settlement runs, past knex's builder and runner (a
// measurable part of a settlement's CPU).
const BY_ID_SQL = 'select * from donations where id = ? limit 1';
/**
 * The locked read is the webhook handlers' (in their transaction): the columns DonationRow
 * declares, not the checkout's return URLs nor the failed / refunded / updated stamps nobody there
 * reads (pg describes and parses every column it is sent, a visible part of a settlement's CPU).
 */
const ROW_COLUMNS = ['id', 'fundraiser_id', 'donor_user_id', 'donor_email', 'donor_name', 'anonymous', 'message', 'referral_code', 'amount_cents',
  'tip_cents', 'currency', 'status', 'method', 'processor_payment_intent_id', 'processor_checkout_session_id', 'processor_charge_id',
  'refunded_cents', 'disputed_cents', 'processor_fee_cents', 'platform_fee_cents', 'dispute_status', 'dispute_fee_cents', 'dispute_fee_txns',
  'receipt_id', 'locale', 'recurring_gift_id', 'processor_invoice_id', 'paid_at', 'created_at'] as const satisfies ReadonlyArray<keyof DonationRow>;
// A field added to DonationRow and not to ROW_COLUMNS fails to compile here (the locked read would leave it undefined).
const everyRowColumn: Exclude<keyof DonationRow, (typeof ROW_COLUMNS)[number]> extends never ? true : never = true;
void everyRowColumn;
const BY_ID_LOCKED_SQL = `select ${ROW_COLUMNS.join(', ')} from donations where id = ? limit 1 for update`;

export async function findById(db: Q, id: string, forUpdate = false): Promise<DonationRow | undefined> {
  return toRow((await queryRows(db, forUpdate ? BY_ID_LOCKED_SQL : BY_ID_SQL, [id]))[0]);
}

/** What a webhook reads of a gift before its transaction opens: whether it is there, settled, and its PaymentIntent. */
export type GiftState = Pick<DonationRow, 'id' | 'status' | 'processor_payment_intent_id'>;
const STATE_BY_ID_SQL = 'select id, status, processor_payment_intent_id from donations where id = ? limit 1';

export async function findStateById(db: Q, id: string): Promise<GiftState | undefined> {
  return (await queryRows<GiftState>(db, STATE_BY_ID_SQL, [id]))[0];
}

/** The gift an invoice paid (a monthly gift's payment), if it was recorded. */
export async function findByInvoice(db: Q, invoiceId: string): Promise<DonationRow | undefined> {
  return toRow(await db('donations').where({ processor_invoice_id: invoiceId }).first());
}

/** The gift a processor object names: by its own id columns, in order (PaymentIntent, Checkout Session, charge). */
export async function findByProcessorIds(
  db: Q,
  ids: { pi?: string | null; cs?: string | null; charge?: string | null },
  forUpdate = false,
): Promise<DonationRow | undefined> {
  const pairs: Array<[string, string | null | undefined]> = [
    ['processor_payment_intent_id', ids.pi],
    ['processor_checkout_session_id', ids.cs],
    ['processor_charge_id', ids.charge],
  ];
  for (const [col, v] of pairs) {
    if (!v) continue;
    const q = db('donations').where(col, v);
    if (forUpdate) q.forUpdate();
    const r = toRow(await q.first());
    if (r) return r;
  }
  return undefined;
}

/** pending -> failed; false when the gift had already moved on. */
export async function markFailed(db: Q, id: string): Promise<boolean> {
  const n = await db('donations').where({ id, status: 'pending' }).update({ status: 'failed', failed_at: db.fn.now(), updated_at: db.fn.now() });
  return n > 0;
}

export type PaidRow = Pick<DonationRow, 'id' | 'donor_user_id' | 'donor_email' | 'message' | 'paid_at'>;

const MARK_PAID_SQL = `update donations set status = 'paid', paid_at = CURRENT_TIMESTAMP, updated_at = CURRENT_TIMESTAMP,
    processor_payment_intent_id = coalesce(processor_payment_intent_id, ?), processor_charge_id = coalesce(processor_charge_id, ?),
    processor_fee_cents = ?, platform_fee_cents = ?
  where id = ? and status in ('pending', 'failed') returning id, donor_user_id, donor_email, message, paid_at`;

/**
 * pending or failed -> paid: the one statement that decides whether this settlement happens
 * (idempotent). `failed` is not final (docs/decisions/0002-exactly-once-processor-events.md): a declined card may be followed by
 * another card on the same PaymentIntent, whose success settles the gift. Answers what the
 * settlement reads of the row as updated (the donor, the message, the time paid), not every column.
 */
export async function markPaid(
  trx: Knex.Transaction,
  id: string,
  f: { pi: string | null; charge: string | null; fee: number; platformFee: number },
): Promise<PaidRow | undefined> {
  return (await queryRows<PaidRow>(trx, MARK_PAID_SQL, [f.pi, f.charge, f.fee, f.platformFee, id]))[0];
}

export async function updateReduction(
  trx: Knex.Transaction,
  id: string,
  patch: { refunded_cents: number; disputed_cents: number; dispute_status: DonationRow['dispute_status']; refunded: boolean; charge: string | null },
): Promise<void> {
  await trx('donations')
    .where({ id })
    .update({
      refunded_cents: patch.refunded_cents,
      disputed_cents: patch.disputed_cents,
      dispute_status: patch.dispute_status,
      processor_charge_id: trx.raw('coalesce(processor_charge_id, ?)', [patch.charge]),
      ...(patch.refunded ? { status: 'refunded', refunded_at: trx.fn.now() } : {}),
      updated_at: trx.fn.now(),
    });
}

export async function setDisputeStatus(trx: Knex.Transaction, id: string, status: DonationRow['dispute_status']): Promise<void> {
  await trx('donations').where({ id }).update({ dispute_status: status, updated_at: trx.fn.now() });
}

export async function setDisputeFees(trx: Knex.Transaction, id: string, fees: { cents: number; txns: number }): Promise<void> {
  await trx('donations').where({ id }).update({ dispute_fee_cents: fees.cents, dispute_fee_txns: fees.txns, updated_at: trx.fn.now() });
}

/** Who counts as one donor of a campaign: the account, else the address, else the gift itself. */
export function donorKey(d: Pick<DonationRow, 'id' | 'donor_user_id' | 'donor_email'>): string {
  return d.donor_user_id ?? (d.donor_email ? d.donor_email.toLowerCase() : d.id);
}

/** Counts one more (or one fewer) paid gift of a donor; answers the campaign's donor_count delta. */
export async function bumpDonor(trx: Knex.Transaction, fundraiserId: string, key: string, by: 1 | -1): Promise<number> {
  if (by === 1) {
    const rows = await queryRows<{ paid_count: number }>(
      trx,
      `insert into fundraiser_donors (fundraiser_id, donor_key, paid_count) values (?, ?, 1)
       on conflict (fundraiser_id, donor_key) do update set paid_count = fundraiser_donors.paid_count + 1
       returning paid_count`,
      [fundraiserId, key],
    );
    return Number(rows[0].paid_count) === 1 ? 1 : 0;
  }
  const [r] = await trx('fundraiser_donors')
    .where({ fundraiser_id: fundraiserId, donor_key: key })
    .andWhere('paid_count', '>', 0)
    .decrement('paid_count', 1)
    .returning('paid_count');
  return r && Number(r.paid_count) === 0 ? -1 : 0;
}

