/**
 * Privacy bench: export and erasure of one account with 10,000 gifts and 1,000
 * comments, each must finish in under a minute. `DATABASE_URL=... npx tsx bench/privacy.ts`
 * (a fresh database `cf_bench_privacy` on that server; STORAGE_DIR a temp folder).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { parseConfig } from '../src/config';
import { createContext } from '../src/create-context';
import { connectDatabase } from '../src/db/connect';
import { createLogger } from '../src/infra/logger';
import { collected } from '../src/modules';
import { eraseNow } from '../src/modules/privacy';
import { exportDocument } from '../src/modules/privacy/privacy.exports';

const GIFTS = Number(process.env.PRIVACY_GIFTS ?? 10_000);
const COMMENTS = Number(process.env.PRIVACY_COMMENTS ?? 1_000);
const NAME = 'cf_bench_privacy';

async function main() {
  const base = process.env.DATABASE_URL;
  if (!base) throw new Error('set DATABASE_URL (a server this bench may create a database on)');
  const admin = new Client({ connectionString: base });
  await admin.connect();
  await admin.query(`drop database if exists ${NAME}`);
  await admin.query(`create database ${NAME}`);
  await admin.end();
  const u = new URL(base);
  u.pathname = `/${NAME}`;
  const config = parseConfig({ NODE_ENV: 'production', LOG_LEVEL: 'silent', RUN_JOBS: 'false', DATABASE_URL: u.toString(), STORAGE_DIR: mkdtempSync(path.join(tmpdir(), 'privacy-bench-')), READ_CACHE: 'false' });
  const handle = await connectDatabase(config, { log: () => undefined, statementTimeoutMs: 0 });
  const db = handle.db;
  const ctx = createContext({ config, db, log: createLogger('silent') });

  const [owner] = await db('users').insert({ email: 'owner@bench.test', name: 'Owner' }).returning('id');
  const [donor] = await db('users').insert({ email: 'donor@bench.test', name: 'Dana Donor', profile_slug: 'dana-donor', bio: 'gives a lot' }).returning('id');
  const [f] = await db('fundraisers')
    .insert({ owner_user_id: owner.id, title: 'Bench campaign', slug: 'bench-privacy', summary: 's', story_html: '<p>s</p>', goal_amount_cents: 1_000_000, currency: 'USD', status: 'active', visibility: 'public', type: 'personal' })
    .returning('id');
  await db.raw(
    `insert into donations (fundraiser_id, donor_user_id, donor_email, donor_name, anonymous, message, amount_cents, tip_cents, currency, status, method, receipt_id, paid_at)
     select ?, ?, 'donor@bench.test', 'Dana Donor', false, 'note ' || g, 1000 + g, 0, 'USD', 'paid', 'card', 'rcpt_bench_' || g, now() - (g || ' minutes')::interval
       from generate_series(1, ?) g`,
    [f.id, donor.id, GIFTS],
  );
  await db.raw(`insert into comments (fundraiser_id, user_id, body) select ?, ?, 'comment ' || g from generate_series(1, ?) g`, [f.id, donor.id, COMMENTS]);
  console.log(`seeded ${GIFTS} gifts and ${COMMENTS} comments`);

  let t0 = Date.now();
  const doc = await exportDocument(ctx, collected.personalData, { userId: donor.id });
  const bytes = Buffer.byteLength(JSON.stringify(doc));
  const exportMs = Date.now() - t0;
  console.log(`export: ${exportMs} ms, ${(doc.gifts as unknown[]).length} gifts, ${(doc.comments as unknown[]).length} comments, ${(bytes / 1e6).toFixed(1)} MB`);

  t0 = Date.now();
  const out = await eraseNow(ctx, collected.personalData, donor.id);
  const eraseMs = Date.now() - t0;
  const left = await db('donations').where({ donor_user_id: donor.id, anonymous: false }).count<{ count: string }[]>('* as count');
  console.log(`erasure: ${eraseMs} ms (${out}); named gifts left: ${left[0]!.count}`);
  await handle.close();
  if (exportMs > 60_000 || eraseMs > 60_000 || out !== 'done') process.exit(1);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
