import { createPublicKey, generateKeyPair, randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import type { Knex } from 'knex';
import { TOKEN_TTL_SECONDS } from '../port';
import * as repo from './local-idp.repo';

const generate = promisify(generateKeyPair);

/**
 * How long past `retired_at + token lifetime` a retired key stays published: a process that read
 * the current kid just before a rotation committed may sign a moment after it, and the processes'
 * clocks (which set `exp`) and the database's (which sets `retired_at`) may differ a little.
 */
export const RETIRED_KEY_MARGIN_S = 60;

export interface SigningKey {
  kid: string;
  privatePem: string;
  publicPem: string;
}

/**
 * RS256 keys kept in the database, shared by every process. Exactly one key is current: it signs
 * new tokens and is read from the database each time tokens are signed (one primary-key read), so
 * after `rotate()` no process signs with the old key. A retired key stays published (JWKS,
 * verification) until every token it signed has expired, then it is refused. Key material never
 * changes for a kid, so it is cached by kid.
 */
export class SigningKeyStore {
  private readonly material = new Map<string, SigningKey>();
  private creating: Promise<unknown> | null = null;

  constructor(
    private readonly db: Knex,
    /** How long a token signed by a key lives: a retired key is published this long (plus the margin). */
    private readonly tokenLifetimeS = TOKEN_TTL_SECONDS,
  ) {}

  private get publishedForS(): number {
    return this.tokenLifetimeS + RETIRED_KEY_MARGIN_S;
  }

  private remember(row: repo.SigningKeyRow): SigningKey {
    const key = { kid: row.kid, privatePem: row.private_pem, publicPem: row.public_pem };
    this.material.set(row.kid, key);
    return key;
  }

  /** The key that signs new tokens; generated on first use (concurrent first uses on any process end with one current key). */
  async current(): Promise<SigningKey> {
    let kid = await repo.currentSigningKid(this.db);
    if (!kid) {
      this.creating ??= this.rotate({ ifNone: true }).finally(() => (this.creating = null));
      await this.creating;
      kid = await repo.currentSigningKid(this.db);
      if (!kid) throw new Error('no current signing key after creating one');
    }
    const known = this.material.get(kid);
    if (known) return known;
    const row = await repo.signingKey(this.db, kid);
    if (!row) throw new Error(`signing key ${kid} vanished`);
    return this.remember(row);
  }

  /**
   * Makes a new key current and retires every other one (they stay published until their tokens
   * expire); nobody is signed out. `ifNone`: only when there is no current key yet (first use).
   * Rotations are serialized by a lock on the table, so two never leave two current keys.
   */
  async rotate(opts: { ifNone?: boolean } = {}): Promise<{ kid: string; retired: string[] } | null> {
    const { privateKey, publicKey } = await generate('rsa', { modulusLength: 2048 });
    const row = {
      kid: randomUUID(),
      private_pem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      public_pem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    };
    return this.db.transaction(async (trx) => {
      await repo.lockSigningKeys(trx);
      if (opts.ifNone && (await repo.currentSigningKid(trx))) return null;
      const retired = await repo.retireSigningKeys(trx);
      await repo.insertSigningKey(trx, row);
      return { kid: row.kid, retired };
    });
  }

  /**
   * The public key of `kid` while it is published (current, or retired less than a token's
   * lifetime ago); null otherwise. Read from the database: a key made by a rotation on another
   * process is known at once, and a key past its time is refused at once.
   */
  async publicKey(kid: string): Promise<string | null> {
    return (await repo.publishedSigningKey(this.db, kid, this.publishedForS))?.public_pem ?? null;
  }

  /** Every published key as a JWKS (current first). */
  async jwks(): Promise<{ keys: Array<Record<string, unknown>> }> {
    let rows = await repo.publishedSigningKeys(this.db, this.publishedForS);
    if (!rows.some((r) => r.retired_at === null)) {
      await this.current();
      rows = await repo.publishedSigningKeys(this.db, this.publishedForS);
    }
    return {
      keys: rows.map((k) => ({ ...createPublicKey(k.public_pem).export({ format: 'jwk' }), kid: k.kid, alg: 'RS256', use: 'sig' })),
    };
  }
}
