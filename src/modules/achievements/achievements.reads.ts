/**
 * Read-only view for the home feed's achievement items. Foreign tables it reads:
 * - users (idp): only achievements of active accounts with a public profile are shown;
 * - fundraisers, fundraiser_translations (fundraisers): a campaign-tied achievement shows only
 *   while its campaign is public and live or ended, named in the reader's language.
 * One query, because the filter and the limit must apply to the joined rows together.
 */
import type { Knex } from 'knex';
import { queryRows, type Db } from '../../db/knex';
import type { AchievementKind } from './achievements.labels';

type Q = Db | Knex.Transaction;

export interface FeedRow {
  code: string;
  kind: AchievementKind;
  at: Date;
  fundraiser_id: string | null;
  title: string | null;
  slug: string | null;
}

/**
 * The newest achievements the public may see: public rows of active accounts with a public
 * profile. One tied to a campaign shows only while that campaign is public and live or ended
 * (it is named then); one tied to no campaign shows unnamed.
 */
export function recentPublic(db: Q, lang: string, limit: number): Promise<FeedRow[]> {
  return queryRows<FeedRow>(
    db,
    `select a.code, a.kind, a.earned_at as at, f.id as fundraiser_id, f.slug, coalesce(tr.title, f.title) as title
       from achievements a
       join users u on u.id = a.user_id and u.status = 'active' and not coalesce(u.profile_private, false)
       left join fundraisers f on f.id = a.fundraiser_id
       left join fundraiser_translations tr on tr.fundraiser_id = f.id and tr.lang = ? and tr.lang <> f.source_language
      where a.public
        and (a.fundraiser_id is null
             or (f.deleted_at is null and f.visibility = 'public' and f.status in ('active','ended')))
      order by a.earned_at desc
      limit ?`,
    [lang, limit],
  );
}
