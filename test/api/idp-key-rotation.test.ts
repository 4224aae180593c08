import jwt from 'jsonwebtoken';
import request from 'supertest';
import { commands } from '../../src/cli/commands';
import { LocalIdentityProvider } from '../../src/integrations/idp/local/local-provider';
import { RETIRED_KEY_MARGIN_S } from '../../src/integrations/idp/local/signing-keys';
import { TOKEN_TTL_SECONDS } from '../../src/integrations/idp/port';
import { closeDb, createTestApp, testDb, type TestApp } from '../helpers/app';
import { createUser, type TestUser } from '../helpers/auth';
import { freshIp } from '../helpers/organizations';

/**
 * Rotating the built-in identity provider's signing key while two processes (two apps on one
 * database) serve: no request fails, tokens signed before keep working, both processes sign with
 * the new key at once and accept it at once, the JWKS lists the retired key until its tokens have
 * expired, and a token signed by a key retired longer than that is refused.
 */

afterAll(closeDb);
// Behind a proxy on loopback, so each probe can come from an address of its own (see probe).
const a = createTestApp({ env: { TRUST_PROXY: 'loopback' } });
const b = createTestApp({ env: { TRUST_PROXY: 'loopback' } });
const db = () => testDb();
const idp = (t: TestApp) => t.ctx.idp as LocalIdentityProvider;
const kidOf = (token: string) => jwt.decode(token, { complete: true })!.header.kid!;
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
const jwksKids = async (t: TestApp) => {
  const r = await request(t.app).get('/local-idp/.well-known/jwks.json');
  expect(r.status).toBe(200);
  return (r.body.keys as Array<{ kid: string }>).map((k) => k.kid);
};
const rotate = () => commands['rotate-idp-key']!.run(db(), [], a.ctx.config);
// Each probe from an address of its own: how many requests flow depends on how long the rotation takes (a busy machine makes more), and the per-address limiter is not what is tried here.
const probe = (t: TestApp, token: string) => request(t.app).get('/api/v1/me/capabilities').set(bearer(token)).set('X-Forwarded-For', freshIp());

let users: TestUser[] = [];

/** A fresh, otherwise valid ID token of users[0] (its claims as the provider issues them), signed by `kid`. */
async function resignedBy(kid: string, privatePem: string): Promise<string> {
  const claims = jwt.decode((await idp(a).issueTokensForUser(users[0]!.id)).idToken) as jwt.JwtPayload;
  return jwt.sign(claims, privatePem, { algorithm: 'RS256', keyid: kid });
}
let k0 = '';

describe('rotating the identity provider signing key with two processes serving', () => {
  test('when the key rotates while requests flow through both processes, then none is refused and new tokens carry the new key at once', async () => {
    users = [await createUser(db()), await createUser(db()), await createUser(db())];
    // Signed in before the rotation, half on each process.
    const before = await Promise.all(users.map((u, i) => idp(i % 2 ? b : a).issueTokensForUser(u.id)));
    k0 = kidOf(before[0]!.idToken);
    expect(new Set(before.map((s) => kidOf(s.idToken)))).toEqual(new Set([k0]));
    expect(await jwksKids(a)).toEqual([k0]);
    // Each process has verified (and so looked up) the old key before the rotation.
    for (const s of before) for (const t of [a, b]) expect((await probe(t, s.idToken)).status).toBe(200);

    const statuses: number[] = [];
    const signedAfter: string[] = [];
    let rotated = false;
    let rounds = 0;
    // Requests keep flowing through both processes until a few rounds after the rotation.
    const flow = (async () => {
      let after = 0;
      while (after < 3) {
        rounds += 1;
        const wasRotated = rotated;
        const fresh = await idp(rounds % 2 ? a : b).issueTokensForUser(users[rounds % users.length]!.id);
        if (wasRotated) signedAfter.push(kidOf(fresh.idToken));
        const tokens = [...before.map((s) => s.idToken), fresh.idToken];
        const rs = await Promise.all(tokens.flatMap((tok) => [probe(a, tok), probe(b, tok)]));
        statuses.push(...rs.map((r) => r.status));
        if (wasRotated) after += 1;
      }
    })();
    await new Promise((r) => setTimeout(r, 50));
    const line = await rotate();
    rotated = true;
    await flow;

    expect(line).toMatch(/^signing key [0-9a-f-]{36} is current; 1 retired key\(s\)/);
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    const k1 = (await idp(a).keys.current()).kid;
    expect(k1).not.toBe(k0);
    // Whichever process signs after the rotation signs with the new key.
    expect(new Set(signedAfter)).toEqual(new Set([k1]));
    // A token the one process signs with the new key is accepted by the other at once.
    const fromA = await idp(a).issueTokensForUser(users[0]!.id);
    expect(kidOf(fromA.idToken)).toBe(k1);
    expect((await probe(b, fromA.idToken)).status).toBe(200);
    // The JWKS of both processes: the new key first, the retired one still there.
    expect(await jwksKids(a)).toEqual([k1, k0]);
    expect(await jwksKids(b)).toEqual([k1, k0]);
    // Nobody was signed out: a refresh token issued before the rotation gets tokens of the new key.
    const refreshed = await idp(b).refresh(before[1]!.refreshToken!);
    expect(kidOf(refreshed.idToken)).toBe(k1);
    expect((await probe(a, refreshed.idToken)).status).toBe(200);
  });

  test('when the key rotates again, then every key whose tokens may still live is listed and the newest signs', async () => {
    await rotate();
    const k2 = (await idp(b).keys.current()).kid;
    const kids = await jwksKids(b);
    expect(kids[0]).toBe(k2);
    expect(kids).toHaveLength(3);
    expect(kids).toContain(k0);
  });

  test('when a key was retired longer ago than a token lives, then it leaves the JWKS and a token it signs is refused by every process', async () => {
    const row = await db()('idp_signing_keys').where({ kid: k0 }).first('private_pem');
    // Retired a token's lifetime (and the margin) ago plus a second.
    await db()('idp_signing_keys')
      .where({ kid: k0 })
      .update({ retired_at: db().raw('now() - make_interval(secs => ?)', [TOKEN_TTL_SECONDS + RETIRED_KEY_MARGIN_S + 1]) });
    expect(await jwksKids(a)).not.toContain(k0);
    expect(await jwksKids(b)).not.toContain(k0);
    // A token that key signs now (unexpired itself, as one made with a leaked key would be).
    const forged = await resignedBy(k0, row.private_pem);
    for (const t of [a, b]) expect((await probe(t, forged)).status).toBe(401);
  });

  test('when a key was retired less than a token lifetime ago, then a token it signed is still accepted', async () => {
    const k1 = (await db()('idp_signing_keys').whereNotNull('retired_at').orderBy('retired_at', 'desc').first('kid', 'private_pem'))!;
    await db()('idp_signing_keys').where({ kid: k1.kid }).update({ retired_at: db().raw('now() - make_interval(secs => ?)', [TOKEN_TTL_SECONDS - 60]) });
    const token = await resignedBy(k1.kid, k1.private_pem);
    expect((await probe(b, token)).status).toBe(200);
  });

  test('when IDP=cognito, then rotate-idp-key refuses and changes nothing', async () => {
    const n = (await db()('idp_signing_keys').count<{ n: string }[]>({ n: '*' }))[0]!.n;
    await expect(commands['rotate-idp-key']!.run(db(), [], { ...a.ctx.config, IDP: 'cognito' })).rejects.toThrow(/IDP=cognito/);
    expect((await db()('idp_signing_keys').count<{ n: string }[]>({ n: '*' }))[0]!.n).toBe(n);
  });
});
