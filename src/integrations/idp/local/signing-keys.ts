import { createPublicKey, generateKeyPair, randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import type { Knex } from 'knex';
import * as repo from './local-idp.repo';

const generate = promisify(generateKeyPair);
/** Key material changes rarely; other instances pick up a rotation within this time. */
const CACHE_MS = 60_000;

export interface SigningKey {
  kid: string;
  privatePem: string;
  publicPem: string;
}

/**
 * RS256 keys kept in the database with a kid. The newest key signs; every key that is not
 * retired is published in the JWKS, so tokens signed before a rotation stay verifiable.
 */
export class SigningKeyStore {
  private cache: { at: number; keys: SigningKey[] } | null = null;
  private creating: Promise<void> | null = null;

  constructor(private readonly db: Knex) {}

  private async load(force = false): Promise<SigningKey[]> {
    if (!force && this.cache && Date.now() - this.cache.at < CACHE_MS) return this.cache.keys;
    const rows = await repo.listSigningKeys(this.db);
    const keys = rows
      .filter((r) => !r.retired_at)
      .map((r) => ({ kid: r.kid, privatePem: r.private_pem, publicPem: r.public_pem }));
    this.cache = { at: Date.now(), keys };
    return keys;
  }

  /** The key that signs new tokens; generated on first use. */
  async current(): Promise<SigningKey> {
    let keys = await this.load();
    if (keys.length === 0) {
      this.creating ??= this.rotate().finally(() => (this.creating = null));
      await this.creating;
      keys = await this.load(true);
    }
    return keys[0]!;
  }

  /** Adds a new signing key; older keys stay published. */
  async rotate(): Promise<void> {
    const { privateKey, publicKey } = await generate('rsa', { modulusLength: 2048 });
    await repo.insertSigningKey(this.db, {
      kid: randomUUID(),
      private_pem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      public_pem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    });
    this.cache = null;
  }

  async publicKey(kid: string): Promise<string | null> {
    let key = (await this.load()).find((k) => k.kid === kid);
    // An unknown kid may come from a rotation on another instance.
    if (!key) key = (await this.load(true)).find((k) => k.kid === kid);
    return key?.publicPem ?? null;
  }

  async jwks(): Promise<{ keys: Array<Record<string, unknown>> }> {
    let keys = await this.load();
    if (keys.length === 0) {
      await this.current();
      keys = await this.load();
    }
    return {
      keys: keys.map((k) => ({ ...createPublicKey(k.publicPem).export({ format: 'jwk' }), kid: k.kid, alg: 'RS256', use: 'sig' })),
    };
  }
}
