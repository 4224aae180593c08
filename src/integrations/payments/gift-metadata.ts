import { createHash } from 'node:crypto';

/**
 * A gift described in its processor objects' metadata, so that a database restored to a point
 * before the gift was started can rebuild its row from the processor's events (recover-since).
 * Nothing personal beyond what the processor already holds (it has the receipt address): the
 * donor's account id, the name only for a public gift, never the message.
 */
/** Metadata as the processor keeps it on an object: string keys and string values. */
export type ProcessorMetadata = Record<string, string>;

export interface GiftDescription {
  fundraiser_id: string;
  amount_cents: number;
  tip_cents: number;
  currency: string;
  donor_user_id: string | null;
  /** Null for an anonymous gift. */
  donor_name: string | null;
  anonymous: boolean;
  method: 'payment_intent' | 'checkout';
  locale: string;
  referral_code: string | null;
  /** The receipt's capability, so a replayed receipt mail links to the receipt the donor already has. */
  receipt_id: string;
  /** The deployment that started the gift (processorOrigin): another's events never create rows here. */
  origin: string;
  /** A monthly gift's first payment: the monthly gift it opens (its subscription carries the same metadata). */
  recurring_gift_id: string | null;
}

/** What a processor object says about the gift it carries: its description and the object's own facts. */
export interface ProcessorGift extends GiftDescription {
  donation_id: string;
  /** The receipt address the processor holds (receipt_email, or the Checkout customer's). */
  donor_email: string | null;
  /** When the processor created the object (the Checkout Session's for a Checkout gift). */
  created: Date | null;
  /** A Checkout gift's session, when known. */
  checkout_session_id: string | null;
}

/** A short fingerprint of the deployment's public URL (not secret: it only tells environments apart). */
export function processorOrigin(publicUrl: string): string {
  return createHash('sha256').update(publicUrl.replace(/\/+$/, '')).digest('hex').slice(0, 12);
}

// Stripe's limits: 50 keys, keys of 40 characters, values of 500, strings only.
const VALUE_MAX = 500;

/** The metadata entries describing a gift (beside `kind` and `donation_id`, which name it). */
export function giftMetadata(g: GiftDescription): ProcessorMetadata {
  const md: ProcessorMetadata = {
    fundraiser_id: g.fundraiser_id,
    amount_cents: String(g.amount_cents),
    tip_cents: String(g.tip_cents),
    currency: g.currency,
    anonymous: g.anonymous ? 'true' : 'false',
    method: g.method,
    locale: g.locale,
    receipt_id: g.receipt_id,
    origin: g.origin,
  };
  if (g.donor_user_id) md.donor_user_id = g.donor_user_id;
  if (g.donor_name && !g.anonymous) md.donor_name = g.donor_name.slice(0, VALUE_MAX);
  if (g.referral_code) md.referral_code = g.referral_code;
  if (g.recurring_gift_id) md.recurring_gift_id = g.recurring_gift_id;
  return md;
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const CENTS = /^(0|[1-9]\d{0,14})$/;
export const TOKEN = /^[A-Za-z0-9_-]{1,64}$/;
const LOCALE = /^[A-Za-z]{2,3}([-_][A-Za-z0-9]{1,8})*$/;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);

/** The description in a metadata object, or null when any required part is missing or malformed. */
export function readGiftMetadata(md: Obj): GiftDescription | null {
  const s = (k: string) => text(md[k]);
  const [fid, amount, tip, currency, anonymous, method, locale, receipt, origin] =
    ['fundraiser_id', 'amount_cents', 'tip_cents', 'currency', 'anonymous', 'method', 'locale', 'receipt_id', 'origin'].map(s);
  const user = s('donor_user_id');
  const ref = s('referral_code');
  const monthly = s('recurring_gift_id');
  const ok =
    UUID.test(fid ?? '') && CENTS.test(amount ?? '') && CENTS.test(tip ?? '') && /^[A-Za-z]{3}$/.test(currency ?? '') &&
    (anonymous === 'true' || anonymous === 'false') && (method === 'payment_intent' || method === 'checkout') &&
    LOCALE.test(locale ?? '') && TOKEN.test(receipt ?? '') && TOKEN.test(origin ?? '') &&
    (user === null || UUID.test(user)) && (ref === null || TOKEN.test(ref)) && (monthly === null || UUID.test(monthly)) && Number(amount) > 0;
  if (!ok) return null;
  return {
    fundraiser_id: fid!,
    amount_cents: Number(amount),
    tip_cents: Number(tip),
    currency: currency!,
    donor_user_id: user,
    donor_name: anonymous === 'true' ? null : s('donor_name'),
    anonymous: anonymous === 'true',
    method: method as GiftDescription['method'],
    locale: locale!,
    referral_code: ref,
    receipt_id: receipt!,
    origin: origin!,
    recurring_gift_id: monthly,
  };
}

/** The receipt address a PaymentIntent, charge or Checkout Session holds. */
function emailOf(o: Obj): string | null {
  const details = isObj(o.customer_details) ? text(o.customer_details.email) : null;
  const billing = isObj(o.billing_details) ? text(o.billing_details.email) : null;
  return (text(o.receipt_email) ?? details ?? text(o.customer_email) ?? billing)?.toLowerCase() ?? null;
}

/** The gift an object's metadata describes, with the object's own facts; null when it describes none completely. */
export function giftOf(donationId: string, metadata: Obj, o: Obj): ProcessorGift | null {
  const d = readGiftMetadata(metadata);
  if (!d) return null;
  const created = typeof o.created === 'number' && Number.isFinite(o.created) ? new Date(o.created * 1000) : null;
  const session = o.object === 'checkout.session' ? text(o.id) : null;
  return { ...d, donation_id: donationId, donor_email: emailOf(o), created, checkout_session_id: session };
}

/** A platform tip described in its Checkout Session's (and subscription's) metadata, for the same reason. */
export interface TipDescription {
  user_id: string | null;
  anonymous: boolean;
  amount_cents: number;
  cadence: 'one_time' | 'recurring';
  locale: string;
  origin: string;
}

/** What a processor object says about the tip it carries. */
export interface ProcessorTip extends TipDescription {
  tip_id: string;
  email: string | null;
  created: Date | null;
  checkout_session_id: string | null;
}

export function tipMetadata(t: TipDescription): ProcessorMetadata {
  const md: ProcessorMetadata = { amount_cents: String(t.amount_cents), anonymous: t.anonymous ? 'true' : 'false', cadence: t.cadence, locale: t.locale, origin: t.origin };
  if (t.user_id) md.user_id = t.user_id;
  return md;
}

/** The tip an object's metadata describes, with the object's own facts; null when it describes none completely. */
export function tipOf(tipId: string, md: Obj, o: Obj): ProcessorTip | null {
  const s = (k: string) => text(md[k]);
  const [amount, anonymous, cadence, locale, origin, user] = ['amount_cents', 'anonymous', 'cadence', 'locale', 'origin', 'user_id'].map(s);
  const ok = CENTS.test(amount ?? '') && Number(amount) > 0 && (anonymous === 'true' || anonymous === 'false') && (cadence === 'one_time' || cadence === 'recurring') &&
    LOCALE.test(locale ?? '') && TOKEN.test(origin ?? '') && (user === null || UUID.test(user));
  if (!ok) return null;
  const created = typeof o.created === 'number' && Number.isFinite(o.created) ? new Date(o.created * 1000) : null;
  return {
    tip_id: tipId,
    user_id: user,
    anonymous: anonymous === 'true',
    amount_cents: Number(amount),
    cadence: cadence as TipDescription['cadence'],
    locale: locale!,
    origin: origin!,
    email: emailOf(o),
    created,
    checkout_session_id: o.object === 'checkout.session' ? text(o.id) : null,
  };
}
