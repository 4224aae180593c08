import type { Knex } from 'knex';
import { queryRows, type Db } from '../../db/knex';
import type { AchievementKind } from './achievements.labels';

type Q = Db | Knex.Transaction;

export interface AchievementRow {
  id: string;
  user_id: string;
  kind: AchievementKind;
  code: string;
  fundraiser_id: string | null;
  public: boolean;
  earned_at: Date;
}

export interface NewAchievement {
  user_id: string;
  kind: AchievementKind;
  code: string;
  fundraiser_id: string | null;
  public: boolean;
  earned_at: Date;
}

/** Records an achievement unless the user already holds that kind; true when this call earned it. */
export async function insertOnce(db: Q, a: NewAchievement): Promise<boolean> {
  const rows = await db('achievements').insert(a).onConflict(['user_id', 'kind']).ignore().returning('id');
  return rows.length > 0;
}

/** A user's achievements, newest first; `withHidden` adds those only their earner may see. */
export function listForUser(db: Q, userId: string, withHidden: boolean): Promise<AchievementRow[]> {
  const q = db('achievements').where({ user_id: userId }).orderBy([{ column: 'earned_at', order: 'desc' }, { column: 'kind' }]);
  if (!withHidden) q.andWhere({ public: true });
  return q.select('*');
}

export async function findByCode(db: Q, code: string): Promise<AchievementRow | undefined> {
  return db('achievements').where({ code }).first();
}

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
