import { randomUUID } from 'node:crypto';
import { closeDb, testDb } from '../helpers/app';
import { createUser } from '../helpers/auth';
import { createFundraiser } from '../helpers/fundraisers';
import { LlmReviewer, RulesReviewer, type ReviewInput } from '../../src/integrations/review';

afterAll(closeDb);

const db = testDb();
const rules = new RulesReviewer(db);

function input(over: Partial<ReviewInput> = {}): ReviewInput {
  return {
    fundraiserId: null,
    ownerUserId: randomUUID(),
    title: `Campaign ${randomUUID()}`,
    summary: 'Help us',
    storyHtml: '<p>We are raising money to rebuild the community centre.</p>',
    goalAmountCents: 100_000,
    currency: 'USD',
    endDate: null,
    ...over,
  };
}

describe('RulesReviewer', () => {
  test('when the campaign is ordinary then approve, score 100, no hold', async () => {
    expect(await rules.review(input())).toEqual({
      reviewer: 'rules', aiDecision: 'approve', trustScore: 100, payoutHold: false, rejectionReasons: [], userMessages: [],
    });
  });

  test('when a banned term appears (any case, punctuation) then block with a field-less message', async () => {
    const r = await rules.review(input({ summary: 'Join our PONZI... scheme' }));
    expect(r.aiDecision).toBe('block');
    expect(r.rejectionReasons).toEqual(['prohibited_content']);
    expect(r.payoutHold).toBe(true);
    expect(r.trustScore).toBeLessThan(50);
  });

  test('when a review term appears then flag; a substring of a word does not count', async () => {
    expect((await rules.review(input({ storyHtml: '<p>Donations in Bitcoin welcome for our long project.</p>' }))).aiDecision).toBe('flag');
    expect((await rules.review(input({ storyHtml: '<p>The cryptography club needs a new room to meet.</p>' }))).aiDecision).toBe('approve');
  });

  test('when goal, dates or lengths are unreasonable then block with field messages', async () => {
    const r = await rules.review(input({ goalAmountCents: 0, endDate: '2000-01-01', title: 'Hi', storyHtml: '<p>x</p>' }));
    expect(r.aiDecision).toBe('block');
    expect(r.rejectionReasons.sort()).toEqual(['end_date_in_past', 'goal_out_of_range', 'story_too_short', 'title_too_short']);
    expect(r.userMessages.map((m) => m.field).sort()).toEqual(['end_date', 'goal_amount_cents', 'story_html', 'title']);
    expect(r.trustScore).toBe(0);
  });

  test('when the title duplicates another owner\'s live campaign then flag duplicate_of_other_campaign', async () => {
    const other = await createUser(db);
    const title = `Save the old mill in Riverton ${randomUUID().slice(0, 4)}`;
    await createFundraiser(db, other.id, { title, status: 'active' });
    const r = await rules.review(input({ title: `${title.toUpperCase()}!` }));
    expect(r.aiDecision).toBe('flag');
    expect(r.rejectionReasons).toEqual(['duplicate_of_other_campaign']);
  });

  test('when another owner\'s similar campaign is only a draft then it is not a duplicate', async () => {
    const other = await createUser(db);
    const title = `Library for Greenfield school ${randomUUID().slice(0, 4)}`;
    await createFundraiser(db, other.id, { title, status: 'draft' });
    expect((await rules.review(input({ title }))).aiDecision).toBe('approve');
  });

  test('when the owner already has a campaign with the same story then flag duplicate_of_own_campaign; itself is excluded', async () => {
    const me = await createUser(db);
    const story = `<p>${'Our family farm was hit by the flood and we lost the barn, the tractor and the whole harvest. '.repeat(3)}</p>`;
    const mine = await createFundraiser(db, me.id, { status: 'draft', story_html: story });
    const dup = await rules.review(input({ ownerUserId: me.id, storyHtml: story }));
    expect(dup.rejectionReasons).toEqual(['duplicate_of_own_campaign']);
    const self = await rules.review(input({ ownerUserId: me.id, storyHtml: story, fundraiserId: mine.id, title: mine.title }));
    expect(self.aiDecision).toBe('approve');
  });
});

describe('LlmReviewer', () => {
  const answer = (body: unknown, status = 200) =>
    jest.fn(async () => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } })) as unknown as typeof fetch;

  test('when the model flags then the decision is stricter and messages are merged', async () => {
    const fetchImpl = answer({ decision: 'flag', trust_score: 55, reasons: ['medical_claims'], messages: [{ code: 'MEDICAL', message: 'Add documents', field: 'story_html' }] });
    const r = await new LlmReviewer(rules, { url: 'http://llm.test/review', apiKey: 'k', fetchImpl }).review(input());
    expect(r).toEqual({
      reviewer: 'llm', aiDecision: 'flag', trustScore: 55, payoutHold: true, rejectionReasons: ['medical_claims'],
      userMessages: [{ code: 'MEDICAL', message: 'Add documents', field: 'story_html' }],
    });
    const [, init] = (fetchImpl as unknown as jest.Mock).mock.calls[0];
    expect(init.headers.authorization).toBe('Bearer k');
    expect(JSON.parse(init.body)).toMatchObject({ title: expect.any(String), story_text: expect.stringContaining('community centre') });
  });

  test('when the model approves a campaign the rules flag then the rules decision stands', async () => {
    const r = await new LlmReviewer(rules, { url: 'http://llm.test', fetchImpl: answer({ decision: 'approve' }) }).review(
      input({ summary: 'casino night' }),
    );
    expect(r.aiDecision).toBe('flag');
  });

  test('when the model is down or answers junk then the rules result is used', async () => {
    const down = jest.fn(async () => { throw new Error('ECONNREFUSED'); }) as unknown as typeof fetch;
    expect((await new LlmReviewer(rules, { url: 'http://llm.test', fetchImpl: down }).review(input())).reviewer).toBe('rules');
    expect((await new LlmReviewer(rules, { url: 'http://llm.test', fetchImpl: answer({ decision: 'maybe' }) }).review(input())).reviewer).toBe('rules');
    expect((await new LlmReviewer(rules, { url: 'http://llm.test', fetchImpl: answer({}, 500) }).review(input())).reviewer).toBe('rules');
  });

  test('when the rules block then the model is not asked', async () => {
    const fetchImpl = answer({ decision: 'approve' });
    const r = await new LlmReviewer(rules, { url: 'http://llm.test', fetchImpl }).review(input({ summary: 'buy drugs' }));
    expect(r.aiDecision).toBe('block');
    expect(fetchImpl).not.toHaveBeenCalled();
  });
});
