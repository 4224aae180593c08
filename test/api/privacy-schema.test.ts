import { collected } from '../../src/modules';
import { closeDb, testDb } from '../helpers/app';

afterAll(closeDb);

/**
 * Columns that refer to a user (or hold an address) but are not the account's personal data,
 * each with the reason. Anything else must be covered by some module's `personalData` part
 * (src/modules/<name>/<name>.personal-data.ts): exported and erased by its owner.
 */
const NOT_PERSONAL: Record<string, string> = {
  'dmca_notices.complainant_email': "a legal notice's sender, not an account; kept as the law requires",
  'dmca_takedowns.staff_user_id': 'staff acting for the platform',
  'idp_sessions.impersonated_by': 'staff acting for the platform (the session itself goes with the identity-provider account)',
  'idp_sessions.user_id': "the built-in provider's sessions: removed with the provider account (IdentityProvider.deleteUser)",
  'idp_credentials.user_id': "the built-in provider's password: removed with the provider account (IdentityProvider.deleteUser)",
  'idp_codes.user_id': "the built-in provider's codes: removed with the provider account (IdentityProvider.deleteUser)",
  'privacy_exports.user_id': "the privacy module's own records of requests (ids only; files removed on erasure)",
  'privacy_erasures.user_id': "the privacy module's own records of requests (ids only)",
  'privacy_requests.email': 'a guest request: the address is cleared once the request is carried out',
  'users.email_verified': 'a flag, erased with the users row',
  'users.email_verified_at': 'a date, erased with the users row',
  'tips.receipt_email_count': 'a counter',
};

describe('privacy: export completeness from the schema', () => {
  it('when a column refers to a user or holds an email, then a module part covers it or it is listed as not personal data', async () => {
    const db = testDb();
    const fks = await db.raw(`
      select c.conrelid::regclass::text || '.' || a.attname as col
        from pg_constraint c join pg_attribute a on a.attrelid = c.conrelid and a.attnum = any(c.conkey)
       where c.contype = 'f' and c.confrelid = 'public.users'::regclass`);
    const emails = await db('information_schema.columns').where({ table_schema: 'public' }).whereILike('column_name', '%email%').select(db.raw(`table_name || '.' || column_name as col`));
    const cols = new Set<string>([...fks.rows.map((r: { col: string }) => r.col), ...emails.map((r: { col: string }) => r.col)]);
    const covered = new Set(collected.personalData.flatMap((p) => p.part.columns));
    const undecided = [...cols].filter((c) => !covered.has(c) && !NOT_PERSONAL[c]).sort();
    expect(undecided).toEqual([]);
    // Each listed column still exists (a stale excuse hides nothing).
    expect(Object.keys(NOT_PERSONAL).filter((c) => !cols.has(c))).toEqual([]);
    expect([...covered].filter((c) => !cols.has(c))).toEqual([]);
  });

  it('when a part covers columns, then it exports or erases something', () => {
    const idle = collected.personalData.filter((p) => p.part.columns.length > 0 && !p.part.export && !p.part.erase).map((p) => p.module);
    expect(idle).toEqual([]);
  });
});
