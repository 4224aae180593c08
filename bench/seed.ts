import type { PoolClient } from 'pg';
import type { Db } from '../src/db/knex';
import { largestCities } from '../src/integrations/geo';

/**
 * Seeds `n` campaigns in a few large INSERT ... SELECT generate_series statements (the search
 * trigger runs per row, so this is the realistic cost of a bulk import). Locations are the 300
 * most populous cities of the gazetteer, skewed towards the largest, like real traffic.
 */
const WORDS = (
  'medical surgery bills school tuition shelter dogs cats community garden library church family funeral ' +
  'memorial team soccer uniforms wildfire flood recovery cancer treatment kids scholarship music album film ' +
  'art mural river cleanup trees refugee housing rent wheelchair therapy veterans food pantry clinic water ' +
  'well books laptop travel tournament band theater rescue horse farm bakery repair roof storm hurricane'
).split(' ');

export const BENCH_OWNERS = 2000;

export async function seed(db: Db, n: number, log: (m: string) => void): Promise<void> {
  const conn = (await db.client.acquireConnection()) as PoolClient;
  try {
    await conn.query(
      `insert into users (email, name, profile_slug)
       select 'bench-' || i || '@bench.test', 'Bench User ' || i, 'bench-user-' || i
       from generate_series(1, $1::int) i on conflict do nothing`,
      [BENCH_OWNERS],
    );
    const cities = largestCities(300);
    const batch = 20_000;
    for (let from = 1; from <= n; from += batch) {
      const to = Math.min(n, from + batch - 1);
      const t0 = Date.now();
      await conn.query(
        `with c as (select * from unnest($3::text[], $4::float8[], $5::float8[]) with ordinality as c(label, lat, lng, k)),
              o as (select array_agg(id order by email) ids from users where email like 'bench-%@bench.test'),
              cat as (select array_agg(id order by id) ids from categories),
              r as (select i, random() r1, random() r2, random() r3, random() r4, random() r5, random() r6, random() r7,
                           1 + floor(power(random(), 2) * 300)::int as city_k from generate_series($1::int, $2::int) i)
         insert into fundraisers (owner_user_id, title, slug, summary, story_html, goal_amount_cents, status, visibility,
           type, is_project, category_id, location, location_lat, location_lng, location_label, end_date, raised_cents,
           donor_count, donation_count, created_at, updated_at, source_language, approved_at, deleted_at)
         select o.ids[1 + (r.i % array_length(o.ids, 1))],
           initcap(($6::text[])[1 + (r.i * 7) % $7]) || ' ' || ($6::text[])[1 + (r.i * 13) % $7] || ' for '
             || ($6::text[])[1 + (r.i * 31) % $7] || ' ' || r.i,
           'bench-' || r.i,
           'Help us with ' || ($6::text[])[1 + (r.i * 17) % $7] || ' and ' || ($6::text[])[1 + (r.i * 23) % $7],
           '<p>Our story: ' || ($6::text[])[1 + (r.i * 3) % $7] || ' ' || ($6::text[])[1 + (r.i * 5) % $7]
             || ' <b>' || ($6::text[])[1 + (r.i * 11) % $7] || '</b> and ' || ($6::text[])[1 + (r.i * 19) % $7] || '.</p>',
           goal,
           case when r.r1 < 0.85 then 'active' when r.r1 < 0.95 then 'ended' when r.r1 < 0.98 then 'draft' else 'pending' end,
           case when r.r2 < 0.90 then 'public' when r.r2 < 0.95 then 'unlisted' else 'private' end,
           (array['personal','for_others','charity'])[1 + (r.i % 3)],
           r.r3 < 0.2,
           cat.ids[1 + (r.i % array_length(cat.ids, 1))],
           case when r.r4 < 0.8 then c.label end,
           case when r.r4 < 0.8 then c.lat end,
           case when r.r4 < 0.8 then c.lng end,
           case when r.r4 < 0.8 then c.label end,
           case when r.r5 < 0.3 then null else current_date + (floor(r.r5 * 425) - 60)::int end,
           floor(goal * r.r6 * 1.2)::bigint,
           floor(r.r6 * 200)::int, floor(r.r6 * 260)::int,
           now() - (r.r7 * interval '730 days'), now(),
           case when r.i % 30 = 0 then 'ru' when r.i % 31 = 0 then 'uk' when r.i % 32 = 0 then 'es' else 'en' end,
           now(), case when r.i % 100 = 0 then now() end
         from r
         cross join o cross join cat
         join c on c.k = r.city_k
         cross join lateral (select (100000 + floor(r.r2 * 5000000))::bigint as goal) g`,
        [from, to, cities.map((x) => x.label), cities.map((x) => x.lat), cities.map((x) => x.lng), WORDS, WORDS.length],
      );
      log(`seeded ${to}/${n} (${Date.now() - t0} ms)`);
    }
    // As autovacuum would: statistics for the planner, and a visibility map for index-only scans.
    await conn.query('vacuum analyze fundraisers');
    await conn.query('analyze users');
  } finally {
    await db.client.releaseConnection(conn);
  }
}
