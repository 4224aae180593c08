import type { Knex } from 'knex';
import type { Db } from '../../db/knex';
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
