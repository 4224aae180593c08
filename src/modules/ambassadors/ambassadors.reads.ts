/**
 * Read-only view for the ambassadors list. Foreign tables it reads:
 * - users (idp): who holds the ambassador role with a public profile, and their public fields
 *   (name, profile slug, avatar, bio); filtered, ordered and paged in one query;
 * - fundraisers (fundraisers), donations (donations): what each ambassador's campaigns raised
 *   (the ledger-kept counters) and what they gave, summed per ambassador in the same query.
 */
import type { Knex } from 'knex';
import type { Db } from '../../db/knex';
import { counterSql } from '../fundraisers';

type Q = Db | Knex.Transaction;

/**
 * Who is shown as an ambassador: the platform role, an account that is not banned (nor
 * deactivated: it no longer exists for others) and a public profile.
 */
const LISTED = `'ambassador' = any(u.roles) and u.status not in ('banned', 'deactivated') and not u.profile_private`;

export interface AmbassadorRow {
  id: string;
  name: string | null;
  slug: string | null;
  avatar: string | null;
  bio: string | null;
}

export async function page(db: Q, limit: number, offset: number): Promise<{ rows: AmbassadorRow[]; total: number }> {
  const [rows, count] = await Promise.all([
    db('users as u')
      .whereRaw(LISTED)
      .orderByRaw('lower(u.name) asc nulls last, u.id')
      .limit(limit)
      .offset(offset)
      .select('u.id', 'u.name', 'u.profile_slug as slug', 'u.avatar', 'u.bio'),
    db('users as u').whereRaw(LISTED).count<{ n: string }[]>({ n: '*' }),
  ]);
  return { rows, total: Number(count[0]?.n ?? 0) };
}

export interface ImpactRow extends AmbassadorRow {
  raised_cents: number;
  given_cents: number;
}

/**
 * Every listed ambassador with what their campaigns raised (the ledger-kept counters) and what
 * they gave (paid gifts net of refunds). Ambassadors are a small set, so this is a live read.
 */
export async function withMoney(db: Q): Promise<ImpactRow[]> {
  const { rows } = await db.raw(
    `select u.id, u.name, u.profile_slug as slug, u.avatar, u.bio,
        coalesce((select sum(${counterSql('f.id', 'raised_cents')}) from fundraisers f
                   where f.owner_user_id = u.id and f.deleted_at is null), 0)::bigint as raised_cents,
        coalesce((select sum(greatest(d.amount_cents - d.refunded_cents, 0)) from donations d
                   where d.donor_user_id = u.id and d.status = 'paid'), 0)::bigint as given_cents
      from users u
     where ${LISTED}`,
  );
  return rows.map((r: Record<string, unknown>) => ({ ...r, raised_cents: Number(r.raised_cents), given_cents: Number(r.given_cents) }) as ImpactRow);
}
