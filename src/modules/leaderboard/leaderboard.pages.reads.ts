/**
 * Read-only view for the top-creators rail and public donor pages. Foreign tables it reads:
 * - fundraisers (fundraisers): what each owner's live campaigns raised (the ledger-kept counters),
 *   and the campaigns a donor supported with whether each may be shown;
 * - users (idp): creators who may be shown (active, public profile) and their public fields;
 * - donations (donations): a donor identity's settled gifts (total, count, latest name).
 */
import { queryRows, type Db } from '../../db/knex';
import { counterSql } from '../fundraisers';

/**
 * Top creators by what their live campaigns raised (the ledger-kept counters on fundraisers),
 * active accounts with public profiles only.
 */
export async function topCreators(db: Db, limit: number) {
  return queryRows<{ id: string; name: string | null; slug: string | null; avatar: string | null; raised: number }>(
    db,
    `select u.id, u.name, u.profile_slug as slug, u.avatar, t.raised
       from (select owner_user_id, sum(${counterSql('fundraisers.id', 'raised_cents')})::bigint as raised from fundraisers
              where deleted_at is null and status in ('active','paused','ended') group by owner_user_id
             having sum(${counterSql('fundraisers.id', 'raised_cents')}) > 0) t
       join users u on u.id = t.owner_user_id
      where u.status = 'active' and not u.profile_private
      order by t.raised desc, u.id
      limit ?`,
    [limit],
  );
}

/** Which gifts an identity gave: named guest gifts by address, or one donor's anonymous gifts. */
function giftsOf(kind: 'guest' | 'anon', identity: string): { where: string; bind: string } {
  if (kind === 'guest') return { where: 'd.donor_user_id is null and lower(d.donor_email) = ? and not d.anonymous', bind: identity };
  const [tag, value] = [identity.slice(0, 2), identity.slice(2)];
  if (tag === 'u:') return { where: 'd.donor_user_id = ?::uuid and d.anonymous', bind: value };
  if (tag === 'e:') return { where: 'd.donor_user_id is null and lower(d.donor_email) = ? and d.anonymous', bind: value };
  return { where: 'd.id = ?::uuid and d.anonymous', bind: value };
}

const CAMPAIGNS_MAX = 50;

/**
 * A donor page's figures over every settled gift (net of refunds and disputes): the total, the
 * count, the public campaigns supported (public, live, not deleted; latest gift first, at most
 * 50) and how many other campaigns were supported. The name is the one the guest gave on their
 * latest gift; anonymous identities have none.
 */
export async function donorPage(db: Db, kind: 'guest' | 'anon', identity: string) {
  const { where, bind } = giftsOf(kind, identity);
  const [sum] = await queryRows<{ given: number; gifts: number; name: string | null }>(
    db,
    `select coalesce(sum(greatest(d.amount_cents - d.refunded_cents - d.disputed_cents, 0)), 0)::bigint as given,
            count(*)::int as gifts,
            ${kind === 'guest' ? '(array_agg(d.donor_name order by d.paid_at desc))[1]' : 'null::text'} as name
       from donations d where d.status = 'paid' and ${where}`,
    [bind],
  );
  const campaigns = await queryRows<{ id: string; title: string; slug: string; public: boolean }>(
    db,
    `select f.id, f.title, f.slug,
            (f.deleted_at is null and f.visibility = 'public' and f.status in ('active','paused','ended')) as public
       from (select d.fundraiser_id, max(d.paid_at) as last from donations d where d.status = 'paid' and ${where} group by 1) s
       join fundraisers f on f.id = s.fundraiser_id
      order by s.last desc, f.id`,
    [bind],
  );
  const shown = campaigns.filter((c) => c.public);
  return {
    name: kind === 'guest' ? (sum?.name ?? null) : null,
    given_cents: Number(sum?.given ?? 0),
    gifts: Number(sum?.gifts ?? 0),
    campaigns: shown.slice(0, CAMPAIGNS_MAX).map((c) => ({ id: c.id, title: c.title, slug: c.slug })),
    campaignsHidden: campaigns.length - shown.length,
  };
}
