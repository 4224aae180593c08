import type { Knex } from 'knex';
import { parseConfig } from '../src/config';
import { createLogger } from '../src/infra/logger';
import { resolveLocation } from '../src/integrations/geo';
import { sandboxFee } from '../src/integrations/payments';
import { recordSettledGift } from '../src/modules/donations';

// An optional demo data set (`npm run admin -- seed-demo`): one verified creator and a dozen
// live campaigns in real cities, so the list, search, near and cities reads show something on
// a fresh install. Reference data (categories) comes from the migrations, not from here.
// Running it again changes nothing: rows are keyed by the demo address and slugs.

const DEMO_EMAIL = 'demo-creator@example.org';

const CAMPAIGNS: Array<{ title: string; summary: string; category: string; location: string; goal: number; raised: number }> = [
  { title: 'Winter food for the Austin dog shelter', summary: 'Kibble and vaccines for 120 rescued dogs.', category: 'animals', location: 'Austin, TX', goal: 800_000, raised: 312_500 },
  { title: 'New roof for the Brooklyn community library', summary: 'Keep the reading room dry and open.', category: 'community', location: 'Brooklyn, NY', goal: 2_500_000, raised: 1_100_000 },
  { title: 'Surgery for Maria after the accident', summary: 'Helping a nurse get back on her feet.', category: 'medical', location: 'Chicago, IL', goal: 4_000_000, raised: 2_950_000 },
  { title: 'School laptops for rural students', summary: 'Forty laptops for a school without a computer lab.', category: 'education', location: 'Denver, CO', goal: 1_200_000, raised: 400_000 },
  { title: 'Flood relief for families in Porto Alegre', summary: 'Water, food and temporary shelter.', category: 'emergency', location: 'Porto Alegre, Brazil', goal: 3_000_000, raised: 2_400_000 },
  { title: 'Community garden in Kyiv', summary: 'Beds, tools and seeds for a neighbourhood garden.', category: 'environment', location: 'Kyiv, Ukraine', goal: 500_000, raised: 125_000 },
  { title: 'Youth football club kits', summary: 'Boots and kits for 60 young players.', category: 'sports', location: 'Madrid, Spain', goal: 600_000, raised: 580_000 },
  { title: 'Mural for the old market hall', summary: 'Local artists paint the market’s history.', category: 'creative', location: 'Seattle, WA', goal: 900_000, raised: 90_000 },
  { title: 'Memorial bench for Grandpa Joe', summary: 'A bench by the lake he walked every day.', category: 'memorial', location: 'Minneapolis, MN', goal: 250_000, raised: 250_000 },
  { title: 'Clean water well for the village school', summary: 'A safe well for 300 children.', category: 'nonprofit', location: 'Nairobi, Kenya', goal: 1_500_000, raised: 700_000 },
  { title: 'Rebuild the family bakery after the fire', summary: 'Ovens, counters and a new start.', category: 'family', location: 'San Antonio, TX', goal: 3_500_000, raised: 1_750_000 },
  { title: 'Choir trip to the regional festival', summary: 'Bus and lodging for 35 singers.', category: 'faith', location: 'Austin, TX', goal: 400_000, raised: 150_000 },
];

function slugOf(title: string): string {
  return `demo-${title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '')}`;
}

export async function seed(knex: Knex): Promise<void> {
  const [owner] = await knex('users')
    .insert({
      email: DEMO_EMAIL,
      name: 'Demo Creator',
      email_verified: true,
      email_verified_at: knex.fn.now(),
      private_contact_email: 'demo-contact@example.org',
      private_contact_verified_at: knex.fn.now(),
      profile_slug: 'demo-creator',
    })
    .onConflict(knex.raw('(lower(email))'))
    .merge({ name: 'Demo Creator' })
    .returning('id');
  const categories = new Map<string, number>(
    (await knex('categories').select('id', 'slug')).map((c: { id: number; slug: string }) => [c.slug, c.id]),
  );
  const endDate = new Date(Date.now() + 90 * 86_400_000).toISOString().slice(0, 10);
  for (const [i, c] of CAMPAIGNS.entries()) {
    const point = resolveLocation(c.location);
    const [created] = await knex('fundraisers')
      .insert({
        owner_user_id: owner.id,
        title: c.title,
        slug: slugOf(c.title),
        summary: c.summary,
        story_html: `<p>${c.summary} Every gift goes straight to the cause, and we will post updates as we go.</p>`,
        goal_amount_cents: c.goal,
        status: 'active',
        visibility: 'public',
        category_id: categories.get(c.category) ?? null,
        location: c.location,
        location_lat: point?.lat ?? null,
        location_lng: point?.lng ?? null,
        location_label: point?.label ?? null,
        cover_image: null,
        end_date: endDate,
        approved_at: knex.fn.now(),
        created_at: knex.raw(`now() - make_interval(hours => ?)`, [i * 7]),
      })
      .onConflict('slug')
      .ignore()
      .returning('id');
    // Money only ever enters through settled gifts (ledger, counters, donors), never as a bare counter.
    if (created) await seedGifts(knex, created.id, c.raised);
  }
}

const DONORS = ['Ana P.', 'Ben K.', 'Chloé D.', 'Dmytro S.', null];

/** `raised` as up to five settled gifts (the last one anonymous), each with the sandbox's processor fee. */
async function seedGifts(knex: Knex, fundraiserId: string, raised: number): Promise<void> {
  const ctx = { config: parseConfig(process.env), log: createLogger('silent') };
  const parts = Math.max(1, Math.min(DONORS.length, Math.floor(raised / 10_000)));
  const each = Math.floor(raised / parts);
  await knex.transaction(async (trx) => {
    for (let i = 0; i < parts; i += 1) {
      const amount = i === parts - 1 ? raised - each * (parts - 1) : each;
      const name = DONORS[i];
      await recordSettledGift(ctx, trx, {
        fundraiser_id: fundraiserId,
        amount_cents: amount,
        donor_name: name,
        anonymous: name === null,
        donor_email: `demo-donor-${i + 1}@example.org`,
        fee_cents: sandboxFee(amount),
      });
    }
  });
}
