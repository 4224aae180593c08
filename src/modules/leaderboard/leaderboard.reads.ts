/**
 * Read-only view for the leaderboard. Foreign tables it reads:
 * - donations (donations), fundraisers (fundraisers): each period's settled gifts, net of refunds
 *   and disputes, and the campaigns they went to (raised, given, and who is a creator);
 * - users (idp): who may be ranked and shown (active, public profile, ambassador role) and each
 *   ranked account's public fields (name, avatar, profile slug);
 * - app_secrets (infra): the donor-key secret, so anonymous rows and donor pages are keyed by the
 *   same HMAC in SQL and in donor-keys.ts (it is made by a migration and never leaves the service).
 * The ranking is a WITH clause that the repo's rebuild inserts from, so a rebuild stays one
 * statement; pages and standings join users so that visibility, order and paging apply together.
 */
import type { Knex } from 'knex';
import { queryRows, type Db } from '../../db/knex';
import type { Audience, Period } from './leaderboard.periods';

/** A campaign's part of a settled gift, net of refunds and disputes (the ledger's own rule, takenBack). */
const NET = 'greatest(d.amount_cents - d.refunded_cents - d.disputed_cents, 0)';

/**
 * `with ... ranked as (...)`: one row per audience and subject with a positive figure, with the
 * figures, the metric the audience ranks on and the tie-breaker. Bindings, in order: the period's
 * days (twice, null for all time) and the driven cents as JSON [{ uid, v }].
 */
export const RANKED_SUBJECTS = `with g as (
       select d.fundraiser_id, d.donor_user_id, d.anonymous, ${NET} as net,
              case when d.donor_user_id is not null then 'u:' || d.donor_user_id
                   when d.donor_email is not null then 'e:' || lower(d.donor_email) else 'd:' || d.id end as ident
         from donations d
        where d.status = 'paid' and (?::int is null or d.paid_at >= now() - make_interval(days => ?::int))
     ),
     raised as (
       select f.owner_user_id as uid, sum(g.net) as v from g join fundraisers f on f.id = g.fundraiser_id
        where f.deleted_at is null group by 1
     ),
     given as (select donor_user_id as uid, sum(net) as v from g where not anonymous and donor_user_id is not null group by 1),
     drv as (select * from json_to_recordset(?::json) as x(uid uuid, v bigint)),
     anon as (select ident, sum(net) as v from g where anonymous group by 1),
     users_s as (
       select u.id, coalesce(r.v, 0) as raised, coalesce(gv.v, 0) as given, coalesce(dv.v, 0) as driven,
              'ambassador' = any(u.roles) as is_amb,
              exists (select 1 from fundraisers f where f.owner_user_id = u.id and f.deleted_at is null
                        and f.status in ('active','paused','ended')) as is_creator
         from (select uid from raised union select uid from given union select uid from drv) s
         join users u on u.id = s.uid
         left join raised r on r.uid = u.id
         left join given gv on gv.uid = u.id
         left join drv dv on dv.uid = u.id
        where u.status = 'active' and not u.profile_private
     ),
     subjects as (
       select 'user' as kind, id as user_id, null::text as anonymous_key, raised, given, driven,
              raised + given + driven as impact, is_amb, is_creator, id::text as tie from users_s
       union all
       select 'anonymous', null, k.key, 0, a.v, 0, a.v, false, false, k.key
         from anon a
         cross join (select value from app_secrets where name = 'donor_key_secret') s
         cross join lateral (select left(encode(hmac('anon:' || a.ident, s.value, 'sha256'), 'hex'), 20) as key) k
     ),
     ranked as (
       select 'all' as audience, s.*, s.impact as metric from subjects s where s.impact > 0
       union all select 'creators', s.*, s.impact from subjects s where s.is_creator and s.impact > 0
       union all select 'ambassadors', s.*, s.impact from subjects s where s.is_amb and s.impact > 0
       union all select 'donors', s.*, s.given from subjects s where s.given > 0
     )`;

/** The donor-key secret's row (app_secrets.donor_key_secret, made by the migration). */
export async function donorKeySecretRow(db: Db | Knex.Transaction): Promise<{ value: string } | undefined> {
  return db('app_secrets').where({ name: 'donor_key_secret' }).first('value');
}

export interface EntryRow {
  rank: number;
  kind: 'user' | 'anonymous';
  user_id: string | null;
  anonymous_key: string | null;
  raised_cents: number;
  given_cents: number;
  driven_cents: number;
  impact_cents: number;
  name: string | null;
  avatar: string | null;
  profile_slug: string | null;
  total?: number;
}

// Accounts that went private, inactive or away since the last rebuild drop out at once (their rank stays a gap).
const VISIBLE = `(e.user_id is null or (u.status = 'active' and not u.profile_private))`;
const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

const ROW = `e.rank, e.kind, e.user_id, e.anonymous_key, e.raised_cents, e.given_cents, e.driven_cents, e.impact_cents,
            u.name, u.avatar, u.profile_slug`;

/**
 * One page in rank order. Without `q` it is a range of the primary key (period, audience, rank):
 * `offset` skips that many places of the ranking and the total is the last rank (a row hidden since
 * the rebuild is a gap until the next one); OFFSET or a window count would visit every row before. With `q` (which only names match: alias rows
 * have none) it starts from the matching accounts and keeps their ranks (no renumbering).
 */
export async function page(db: Db, f: { period: Period; audience: Audience; q: string | null; limit: number; offset: number }) {
  if (!f.q) {
    const [rows, [last]] = await Promise.all([
      queryRows<EntryRow>(
        db,
        // offset counts places in the ranking as ranked (ranks 1..n without gaps), so it is a range on the key.
        `select ${ROW} from leaderboard_entries e left join users u on u.id = e.user_id
          where e.period = ? and e.audience = ? and e.rank > ? and ${VISIBLE} order by e.rank limit ?`,
        [f.period, f.audience, f.offset, f.limit],
      ),
      queryRows<{ n: number | null }>(db, 'select max(rank) as n from leaderboard_entries where period = ? and audience = ?', [f.period, f.audience]),
    ]);
    return { rows, total: Number(last?.n ?? 0) };
  }
  const matching = `from users u join leaderboard_entries e on e.user_id = u.id and e.period = ? and e.audience = ?
     where u.status = 'active' and not u.profile_private and u.name ilike ? escape '\\'`;
  const bind = [f.period, f.audience, `%${likeEscape(f.q)}%`];
  const rows = await queryRows<EntryRow>(db, `select ${ROW}, count(*) over () as total ${matching} order by e.rank limit ? offset ?`, [...bind, f.limit, f.offset]);
  let total = rows.length ? Number(rows[0]!.total) : 0;
  if (!rows.length && f.offset > 0) total = Number((await queryRows<{ n: number }>(db, `select count(*)::int as n ${matching}`, bind))[0]?.n ?? 0);
  return { rows, total };
}

/** The caller's own row in a ranking, if ranked. */
export async function standing(db: Db, userId: string, period: Period, audience: Audience): Promise<EntryRow | undefined> {
  const [row] = await queryRows<EntryRow>(
    db,
    `select ${ROW} from leaderboard_entries e join users u on u.id = e.user_id
      where e.user_id = ? and e.period = ? and e.audience = ?`,
    [userId, period, audience],
  );
  return row;
}
