import { generateKeyPairSync, randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { parseConfig } from '../../src/config';
import { closeDb, createTestApp, testDb } from '../helpers/app';
import { createUser } from '../helpers/auth';
import { createFundraiser } from '../helpers/fundraisers';

afterAll(closeDb);

const AUD = 'http://api.test';
const attester = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const stranger = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const KEYS = JSON.stringify({ keys: [{ ...attester.publicKey.export({ format: 'jwk' }), kid: 'attest-1', use: 'sig', alg: 'ES256' }] });

function attestation(opts: { key?: typeof attester.privateKey; aud?: string; lifetime?: number; jti?: string } = {}) {
  return jwt.sign({ sub: 'org.example.app', jti: opts.jti ?? randomUUID() }, opts.key ?? attester.privateKey, {
    algorithm: 'ES256',
    keyid: 'attest-1',
    audience: opts.aud ?? AUD,
    expiresIn: opts.lifetime ?? 120,
  });
}

// CAPTCHA is configured (its verifier unreachable, so every captchaToken fails): only a valid attestation lets a guest pay.
const t = createTestApp({ env: { CAPTCHA_SECRET: 'captcha-secret', CAPTCHA_VERIFY_URL: 'http://127.0.0.1:9/siteverify', APP_ATTESTATION_KEYS: KEYS } });
let fundraiserId: string;

beforeAll(async () => {
  const owner = await createUser(testDb());
  fundraiserId = (await createFundraiser(testDb(), owner.id)).id;
});

const intent = (headers: Record<string, string> = {}, extra: Record<string, unknown> = {}) =>
  request(t.app)
    .post('/api/v1/payments/create-intent')
    .set(headers)
    .send({ fundraiser_id: fundraiserId, amount_cents: 1500, donor_email: 'app-guest@example.test', ...extra });

describe('native-app attestation', () => {
  it('when a guest sends a valid attestation, then it replaces the CAPTCHA', async () => {
    const r = await intent({ 'X-App-Attestation': attestation() });
    expect(r.status).toBe(201);
  });

  it('when the same attestation is sent twice, then the replay is refused', async () => {
    const token = attestation();
    expect((await intent({ 'X-App-Attestation': token })).status).toBe(201);
    const again = await intent({ 'X-App-Attestation': token });
    expect(again.status).toBe(403);
    expect(again.body).toMatchObject({ captchaFailed: true });
  });

  it.each([
    ['signed by an unknown key', () => attestation({ key: stranger.privateKey })],
    ['made for another service', () => attestation({ aud: 'https://elsewhere.example' })],
    ['valid for longer than five minutes', () => attestation({ lifetime: 3600 })],
    ['not a token at all', () => 'not-a-jws'],
  ])('when the attestation is %s, then the guest gets 403 captchaFailed', async (_what, make) => {
    const r = await intent({ 'X-App-Attestation': make() });
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ captchaFailed: true });
  });

  it('when a guest sends neither an attestation nor a passing CAPTCHA, then 403 captchaFailed', async () => {
    expect((await intent()).body).toMatchObject({ captchaFailed: true });
    expect((await intent({}, { captchaToken: 'nope' })).status).toBe(403);
  });

  it('when a guest starts a tip with a valid attestation, then it is accepted', async () => {
    const r = await request(t.app)
      .post('/api/v1/platform/tips')
      .set('X-App-Attestation', attestation())
      .send({ amount_cents: 500, cadence: 'one_time', email: 'app-guest@example.test' });
    expect(r.status).toBe(201);
  });

  it('when APP_ATTESTATION_KEYS is not a usable JWKS, then the configuration is refused naming it', () => {
    expect(() => parseConfig({ APP_ATTESTATION_KEYS: '{"keys":[]}' })).toThrow(/APP_ATTESTATION_KEYS/);
    expect(() => parseConfig({ APP_ATTESTATION_KEYS: 'nope' })).toThrow(/APP_ATTESTATION_KEYS/);
  });
});
