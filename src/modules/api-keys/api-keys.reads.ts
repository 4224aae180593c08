/**
 * Read-only view for API-key authentication. Foreign table it reads:
 * - users (idp): the key owner's status (only an active owner's key works, checked live so that
 *   a suspension takes effect at once) and the fields the actor is built from.
 * A subquery rather than a function: useKey checks the owner in the same statement that stamps
 * the key's last_used_at.
 */
export const ACTIVE_KEY_OWNERS = `select id, email, roles, email_verified from users where status = 'active'`;
