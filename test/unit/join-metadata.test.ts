import { joinMetadata, processorOrigin, type JoinDescription } from '../../src/integrations/payments';
import { refOf } from '../../src/integrations/payments/stripe-events';

/** A community join's description in processor metadata: account ids only, within Stripe's limits, read back exactly. */

const ID = '3b0f5c1e-7d2a-4c4e-9a51-0c7e2f9d8a10';
const join: JoinDescription = {
  community_id: '8e6f1c2a-1b3d-4e5f-8a9b-0c1d2e3f4a5b',
  user_id: 'c0ffee00-1b3d-4e5f-8a9b-0c1d2e3f4a5b',
  interval: 'year',
  amount_cents: 1_000_000,
  currency: 'usd',
  needs_approval: true,
  approved: false,
  origin: processorOrigin('https://api.example.org'),
};
const md = (j: JoinDescription = join): Record<string, string> => ({ kind: 'community_join', join_id: ID, ...joinMetadata(j) });

test('when a join is described, then its metadata is strings within Stripe\'s limits and an object carrying it reads back as written', () => {
  for (const [k, v] of Object.entries(md())) {
    expect(k.length).toBeLessThanOrEqual(40);
    expect(typeof v).toBe('string');
    expect(v.length).toBeLessThanOrEqual(500);
  }
  expect(md()).not.toHaveProperty('approved');
  expect(refOf(md(), { object: 'setup_intent', created: 1_700_000_000 })).toEqual({
    kind: 'community_join',
    id: ID,
    join: { ...join, join_id: ID, created: new Date(1_700_000_000_000) },
  });
  expect(refOf(md({ ...join, approved: true }), { object: 'invoice' })?.join).toEqual({ ...join, approved: true, join_id: ID, created: null });
});

test('when the description is incomplete or malformed, then the ref names the join without describing it', () => {
  const { origin: _o, ...noOrigin } = md();
  for (const bad of [noOrigin, { ...md(), user_id: 'someone' }, { ...md(), interval: 'week' }, { ...md(), amount_cents: '0' }, { ...md(), needs_approval: 'yes' }]) {
    expect(refOf(bad, { object: 'subscription' })).toEqual({ kind: 'community_join', id: ID });
  }
  // Without the object (the invoice's metadata looked up alone) nothing is described either.
  expect(refOf(md())).toEqual({ kind: 'community_join', id: ID });
});
