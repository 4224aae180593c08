import type { Knex } from 'knex';
import { sqlRef } from '../../db/sql-ref';

type Q = Knex | Knex.Transaction;

/**
 * What the identity module publishes for other modules to read accounts (the users table) with:
 * public fields by id, a user's locale and name, and, for reads that must stay one query (lists,
 * pages), the join to embed. `onColumn` and `onRef` name a column of the enclosing query.
 */

/** Whether the account exists here (a row rebuilt from the processor may name one made after a restore point). */
export async function accountExists(db: Q, id: string | null | undefined): Promise<boolean> {
  return !!id && !!(await db('users').where({ id }).first('id'));
}

/** What anyone may see of an account (a comment's author, a supporter, a tipper). */
export interface PublicUser {
  id: string;
  name: string | null;
  avatar: string | null;
  profile_slug: string | null;
}

/** The public fields of these accounts; unknown ids are absent. */
export async function publicUsers(db: Q, ids: string[]): Promise<Map<string, PublicUser>> {
  const unique = [...new Set(ids)];
  if (!unique.length) return new Map();
  const rows: PublicUser[] = await db('users').whereIn('id', unique).select('id', 'name', 'avatar', 'profile_slug');
  return new Map(rows.map((r) => [r.id, r]));
}

/** The language the account's mails go out in (null: none chosen). */
export async function userLocale(db: Q, userId: string): Promise<string | null> {
  const row = await db('users').where({ id: userId }).first('locale');
  return row?.locale ?? null;
}

/** The account's display name (null: none given). */
export async function userName(db: Q, userId: string): Promise<string | null> {
  const row = await db('users').where({ id: userId }).first('name');
  return row?.name ?? null;
}

/** An account as a campaign holder, endorser or donor shows it, with what its readiness checks need. */
export interface UserProfile {
  id: string;
  name: string | null;
  avatar: string | null;
  email_verified: boolean;
  profile_slug: string | null;
  locale: string;
  private_contact_verified_at: Date | null;
}

export async function userProfile(db: Q, id: string): Promise<UserProfile | undefined> {
  return db('users')
    .where({ id })
    .first('id', 'name', 'avatar', 'email_verified', 'profile_slug', 'locale', 'private_contact_verified_at');
}

/** The account's addresses: login, and private contact with its verification. */
export interface UserContact {
  id: string;
  email: string;
  locale: string | null;
  private_contact_email: string | null;
  private_contact_verified_at: Date | null;
}

export async function userContact(db: Q, id: string): Promise<UserContact | undefined> {
  return db('users')
    .select('id', 'email', 'locale', 'private_contact_email', 'private_contact_verified_at')
    .where({ id })
    .first();
}

/**
 * Joins each row's account as `alias` to a knex query (inner join; `left` keeps rows without
 * one): `joinPublicUser(q, 'u', 'c.user_id')`, then select `u.name`, `u.avatar`, `u.profile_slug`.
 */
export function joinPublicUser<T extends Knex.QueryBuilder>(q: T, alias: string, onColumn: string, opts: { left?: boolean } = {}): T {
  return (opts.left ? q.leftJoin(`users as ${alias}`, `${alias}.id`, onColumn) : q.join(`users as ${alias}`, `${alias}.id`, onColumn)) as T;
}

/** The same join as SQL text for a raw query: `[left] join users <alias> on <alias>.id = <onRef>`. */
export function publicUserJoinSql(alias: string, onRef: string, opts: { left?: boolean } = {}): string {
  return `${opts.left ? 'left join' : 'join'} users ${sqlRef(alias)} on ${alias}.id = ${sqlRef(onRef)}`;
}
