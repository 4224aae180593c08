import { CENTS, TOKEN, UUID, type ProcessorMetadata } from './gift-metadata';

/**
 * A paid community join described in its SetupIntent's and subscription's metadata (beside `kind`
 * and `join_id`), so that a database restored to a point before the join was started can rebuild
 * it from the processor's events (recover-since). Account ids only: no address, no name.
 */
export interface JoinDescription {
  community_id: string;
  user_id: string;
  interval: 'month' | 'year';
  amount_cents: number;
  currency: string;
  needs_approval: boolean;
  /** Set on the subscription a leader's approval created: that object exists only once a leader said yes. */
  approved: boolean;
  /** The deployment that started the join (processorOrigin): another's events never create rows here. */
  origin: string;
}

/** What a processor object says about the join it carries: its description and the object's own facts. */
export interface ProcessorJoin extends JoinDescription {
  join_id: string;
  /** When the processor created the object (the SetupIntent, the subscription's invoice). */
  created: Date | null;
}

export function joinMetadata(j: JoinDescription): ProcessorMetadata {
  const md: ProcessorMetadata = {
    community_id: j.community_id,
    user_id: j.user_id,
    interval: j.interval,
    amount_cents: String(j.amount_cents),
    currency: j.currency,
    needs_approval: j.needs_approval ? 'true' : 'false',
    origin: j.origin,
  };
  if (j.approved) md.approved = 'true';
  return md;
}

type Obj = Record<string, unknown>;
const text = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);

/** The join an object's metadata describes, with the object's own facts; null when it describes none completely. */
export function joinOf(joinId: string, md: Obj, o: Obj): ProcessorJoin | null {
  const s = (k: string) => text(md[k]);
  const [community, user, interval, amount, currency, approval, approved, origin] =
    ['community_id', 'user_id', 'interval', 'amount_cents', 'currency', 'needs_approval', 'approved', 'origin'].map(s);
  const ok =
    UUID.test(community ?? '') && UUID.test(user ?? '') && (interval === 'month' || interval === 'year') && CENTS.test(amount ?? '') && Number(amount) > 0 &&
    /^[A-Za-z]{3}$/.test(currency ?? '') && (approval === 'true' || approval === 'false') && (approved === null || approved === 'true') && TOKEN.test(origin ?? '');
  if (!ok) return null;
  return {
    join_id: joinId,
    community_id: community!.toLowerCase(),
    user_id: user!.toLowerCase(),
    interval: interval as JoinDescription['interval'],
    amount_cents: Number(amount),
    currency: currency!.toLowerCase(),
    needs_approval: approval === 'true',
    approved: approved === 'true',
    origin: origin!,
    created: typeof o.created === 'number' && Number.isFinite(o.created) ? new Date(o.created * 1000) : null,
  };
}
