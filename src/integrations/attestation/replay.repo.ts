import type { Db } from '../../db/knex';

export interface Attestation {
  /** The attested app (the token's `sub`). */
  appId: string;
  /** One-time id; the caller records it so a replay is refused. */
  jti: string;
  expiresAt: Date;
}

/** Spends an attestation: true the first time, false on a replay. Expired ids are swept on the way. */
export async function spendAttestation(db: Db, a: Attestation): Promise<boolean> {
  await db('used_attestations').where('expires_at', '<', db.fn.now()).del();
  const rows = await db('used_attestations')
    .insert({ jti: a.jti, app_id: a.appId, expires_at: a.expiresAt })
    .onConflict('jti')
    .ignore()
    .returning('jti');
  return rows.length > 0;
}

/** Deletes spent attestations expired over `graceDays` ago (a replay of one is refused by its expiry by then); answers how many. */
export async function pruneExpiredAttestations(db: Db, graceDays: number): Promise<number> {
  return db('used_attestations').where('expires_at', '<', db.raw('now() - make_interval(days => ?)', [graceDays])).del();
}
