import { giftMetadata, processorOrigin, tipMetadata, type GiftDescription } from '../../src/integrations/payments';
import { giftOf, readGiftMetadata, tipOf } from '../../src/integrations/payments/gift-metadata';
import { refOf } from '../../src/integrations/payments/stripe-events';

/** A gift's description in processor metadata: within Stripe's limits, nothing personal beyond the processor's own, read back exactly. */

const ID = '3b0f5c1e-7d2a-4c4e-9a51-0c7e2f9d8a10';
const gift: GiftDescription = {
  fundraiser_id: '8e6f1c2a-1b3d-4e5f-8a9b-0c1d2e3f4a5b',
  amount_cents: 10_000_000,
  tip_cents: 1_000_000,
  currency: 'USD',
  donor_user_id: 'c0ffee00-1b3d-4e5f-8a9b-0c1d2e3f4a5b',
  donor_name: 'N'.repeat(100),
  anonymous: false,
  method: 'checkout',
  locale: 'uk',
  referral_code: 'r'.repeat(64),
  receipt_id: 'x'.repeat(32),
  origin: processorOrigin('https://api.example.org'),
  recurring_gift_id: '5e1f0c2a-1b3d-4e5f-8a9b-0c1d2e3f4a5b',
};
const withName = (name: string | null, anonymous = false) => ({ ...gift, donor_name: name, anonymous });

test('when a gift is described, then Stripe takes the metadata (50 keys, 40-character keys, 500-character string values) and it reads back as written', () => {
  const md = { kind: 'donation', donation_id: ID, ...giftMetadata(withName('n'.repeat(900))) };
  expect(Object.keys(md).length).toBeLessThanOrEqual(50);
  for (const [k, v] of Object.entries(md)) {
    expect(k.length).toBeLessThanOrEqual(40);
    expect(typeof v).toBe('string');
    expect(v.length).toBeLessThanOrEqual(500);
  }
  expect(readGiftMetadata(giftMetadata(gift))).toEqual(gift);
  expect(readGiftMetadata(giftMetadata({ ...gift, donor_user_id: null, referral_code: null, tip_cents: 0, recurring_gift_id: null }))).toEqual({ ...gift, donor_user_id: null, referral_code: null, tip_cents: 0, recurring_gift_id: null });
});

test('when the gift is anonymous or a guest\'s, then its metadata holds no name, and never an address or a message', () => {
  const md = giftMetadata(withName('Ada Lovelace', true));
  expect(Object.values(md)).not.toContain('Ada Lovelace');
  expect(readGiftMetadata(md)).toEqual(expect.objectContaining({ anonymous: true, donor_name: null }));
  expect(Object.keys(giftMetadata(gift)).filter((k) => /mail|message|note/.test(k))).toEqual([]);
});

test('when a part is missing or malformed, then the metadata describes no gift', () => {
  const md = giftMetadata(gift);
  const without = (k: string) => Object.fromEntries(Object.entries(md).filter(([key]) => key !== k));
  for (const k of ['fundraiser_id', 'amount_cents', 'tip_cents', 'currency', 'anonymous', 'method', 'locale', 'receipt_id', 'origin']) expect(readGiftMetadata(without(k))).toBeNull();
  for (const [k, v] of [['amount_cents', '0'], ['amount_cents', '1.5'], ['tip_cents', '-1'], ['currency', 'dollars'], ['fundraiser_id', 'x'], ['donor_user_id', 'me'], ['method', 'cash'], ['anonymous', 'yes'], ['referral_code', 'a b'], ['recurring_gift_id', 'monthly']]) {
    expect(readGiftMetadata({ ...md, [k!]: v })).toBeNull();
  }
});

test('when the origin is computed, then it is 12 hex digits of the public URL, the same with a trailing slash and different for another deployment', () => {
  expect(processorOrigin('https://api.example.org')).toMatch(/^[0-9a-f]{12}$/);
  expect(processorOrigin('https://api.example.org/')).toBe(processorOrigin('https://api.example.org'));
  expect(processorOrigin('https://staging.example.org')).not.toBe(processorOrigin('https://api.example.org'));
});

test('when a processor object carries the description, then its ref has the gift with the object\'s address, creation time and Checkout Session', () => {
  const metadata = { kind: 'donation', donation_id: ID, ...giftMetadata(gift) };
  const session = { id: 'cs_1', object: 'checkout.session', created: 1_800_000_000, metadata, customer_email: null, customer_details: { email: 'Donor@Example.test' } };
  expect(giftOf(ID, metadata, session)).toEqual({ ...gift, donation_id: ID, donor_email: 'donor@example.test', created: new Date(1_800_000_000_000), checkout_session_id: 'cs_1' });
  const pi = { id: 'pi_1', object: 'payment_intent', receipt_email: 'g@example.test' };
  expect(refOf(metadata, pi)).toEqual({ kind: 'donation', id: ID, gift: expect.objectContaining({ donor_email: 'g@example.test', created: null, checkout_session_id: null }) });
  // The link alone (older objects, a tip's): no description.
  expect(refOf({ kind: 'donation', donation_id: ID }, pi)).toEqual({ kind: 'donation', id: ID });
  expect(refOf({ kind: 'tip', tip_id: ID }, pi)).toEqual({ kind: 'tip', id: ID });
});

test('when a tip is described, then its metadata reads back with the session\'s address and time, and a malformed part describes none', () => {
  const t = { user_id: null, anonymous: true, amount_cents: 1_000_000, cadence: 'recurring' as const, locale: 'es', origin: processorOrigin('https://api.example.org') };
  const md = { kind: 'tip', tip_id: ID, ...tipMetadata(t) };
  expect(Object.keys(md).every((k) => k.length <= 40) && Object.values(md).every((v) => typeof v === 'string' && v.length <= 500)).toBe(true);
  const session = { id: 'cs_t', object: 'checkout.session', created: 1_800_000_000, customer_details: { email: 't@example.test' } };
  expect(tipOf(ID, md, session)).toEqual({ ...t, tip_id: ID, email: 't@example.test', created: new Date(1_800_000_000_000), checkout_session_id: 'cs_t' });
  expect(refOf(md, session)).toEqual({ kind: 'tip', id: ID, tip: expect.objectContaining({ cadence: 'recurring' }) });
  for (const [k, v] of [['cadence', 'weekly'], ['amount_cents', '0'], ['origin', ''], ['user_id', 'me']]) expect(tipOf(ID, { ...md, [k!]: v }, session)).toBeNull();
});
