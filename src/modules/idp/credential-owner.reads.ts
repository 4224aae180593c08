import type { Knex } from 'knex';
import { queryRows } from '../../db/knex';

/**
 * A declared view (read only): the account behind a token together with the local identity
 * provider's session the token belongs to (idp_sessions, the provider's table), in one query on
 * every signed-in request.
 */

export interface CredentialOwnerRow {
  id: string;
  email: string;
  roles: string[];
  status: string;
  email_verified: boolean;
  tokens_valid_after: Date | null;
  session_id: string | null;
  session_revoked_at: Date | null;
  impersonated_by: string | null;
}

const COLUMNS = [
  'u.id',
  'u.email',
  'u.roles',
  'u.status',
  'u.email_verified',
  'u.tokens_valid_after',
  's.id as session_id',
  's.revoked_at as session_revoked_at',
  's.impersonated_by',
];

const OWNER_BY_ID = `select ${COLUMNS.join(', ')} from users u
  left join idp_sessions s on s.user_id = u.id and s.id = ?::uuid
  where u.id = ? limit 1`;

/**
 * The token's owner and (local provider) the session the token belongs to, in one query. Runs on
 * every signed-in request: straight through pg (queryRows), not knex's builder.
 */
export async function ownerById(db: Knex, userId: string, sessionId: string | null): Promise<CredentialOwnerRow | undefined> {
  return (await queryRows<CredentialOwnerRow>(db, OWNER_BY_ID, [sessionId, userId]))[0];
}

/** The account an external provider's subject is linked to (no local session: its columns are null). */
export async function ownerBySubject(db: Knex, subject: string): Promise<CredentialOwnerRow | undefined> {
  return db('users as u').leftJoin('idp_sessions as s', db.raw('false')).where('u.idp_subject', subject).first(COLUMNS);
}
