import fs from 'node:fs';
import path from 'node:path';
import { migrationTables, sourceFiles, tableRefs, type TableRef } from '../helpers/table-refs';

const ROOT = path.resolve(__dirname, '../..');

/**
 * The one owner of every table: the folder (under src/) whose files alone may write it and name it
 * in SQL. Anything else reads it through what the owner publishes from its index.ts, or in a
 * declared view: a `*.reads.ts` file, which may name any table but write none.
 */
const OWNERS: Record<string, string> = {
  achievements: 'modules/achievements',
  ambassador_applications: 'modules/ambassadors',
  ambassador_invites: 'modules/idp',
  api_keys: 'modules/api-keys',
  app_secrets: 'infra',
  audit_log: 'modules/audit',
  backup_runs: 'modules/backups',
  campaign_update_reads: 'modules/feed',
  categories: 'modules/discovery',
  comment_likes: 'modules/comments',
  comments: 'modules/comments',
  communities: 'modules/communities',
  community_joins: 'modules/communities',
  community_members: 'modules/communities',
  community_payments: 'modules/communities',
  community_withdrawal_codes: 'modules/communities',
  community_withdrawals: 'modules/communities',
  connected_credits: 'modules/payouts',
  dmca_notices: 'modules/dmca',
  dmca_takedowns: 'modules/dmca',
  donations: 'modules/donations',
  donor_keys: 'modules/leaderboard',
  endorsement_requests: 'modules/endorsements',
  endorsements: 'modules/endorsements',
  events: 'events',
  feature_flags: 'http',
  follows: 'modules/follows',
  fundraiser_counter_shards: 'modules/fundraisers',
  fundraiser_donors: 'modules/donations',
  recurring_gifts: 'modules/donations',
  fundraiser_paid_buckets: 'modules/donations',
  fundraiser_reviews: 'integrations/review',
  fundraiser_share_visits: 'modules/fundraisers',
  fundraiser_shares: 'modules/fundraisers',
  fundraiser_translations: 'modules/fundraisers',
  fundraisers: 'modules/fundraisers',
  idempotency_keys: 'http',
  idp_codes: 'integrations/idp/local',
  idp_credentials: 'integrations/idp/local',
  idp_sessions: 'integrations/idp/local',
  idp_signing_keys: 'integrations/idp/local',
  image_crops: 'modules/media',
  job_inbox: 'infra',
  jobs: 'infra',
  leaderboard_entries: 'modules/leaderboard',
  leaderboard_state: 'modules/leaderboard',
  ledger_entries: 'modules/ledger',
  live_gifts: 'modules/donations',
  mail_outbox: 'integrations/mail',
  media_uploads: 'modules/media',
  milestone_translations: 'modules/milestones',
  milestones: 'modules/milestones',
  notification_preferences: 'modules/preferences',
  notifications: 'modules/notifications',
  org_documents: 'modules/organizations',
  org_members: 'modules/organizations',
  organizations: 'modules/organizations',
  payout_bucket_parts: 'modules/payouts',
  payouts: 'modules/payouts',
  presence_pings: 'modules/activity',
  payment_sync_state: 'modules/reconciliation',
  privacy_erasures: 'modules/privacy',
  privacy_exports: 'modules/privacy',
  privacy_requests: 'modules/privacy',
  processed_webhook_events: 'modules/webhooks',
  processor_balance_transactions: 'modules/reconciliation',
  processor_accounts: 'modules/payouts',
  processor_calls: 'modules/payouts',
  project_updates: 'modules/updates',
  referral_attributions: 'modules/referrals',
  referral_clicks: 'modules/referrals',
  refresh_token_owners: 'modules/idp',
  reports: 'modules/reports',
  reconciliation_runs: 'modules/reconciliation',
  sandbox_objects: 'integrations/payments',
  sign_in_throttle: 'modules/idp',
  tip_payments: 'modules/tips',
  tips: 'modules/tips',
  transfer_reversals: 'modules/payouts',
  transfers: 'modules/payouts',
  update_likes: 'modules/updates',
  update_translations: 'modules/updates',
  used_attestations: 'integrations/attestation',
  user_blocks: 'modules/blocks',
  user_identities: 'modules/oauth',
  users: 'modules/idp',
  verification_tokens: 'modules/verification',
  webhook_deliveries: 'modules/webhook-endpoints',
  webhook_endpoints: 'modules/webhook-endpoints',
  withdrawals: 'modules/payouts',
};

/**
 * Places allowed to name another folder's table outside a `*.reads.ts` view, each with its reason.
 * Keyed `file:table`; at most five.
 */
const EXCEPTIONS: Record<string, string> = {};

const tables = migrationTables(path.join(ROOT, 'migrations'));
const refs: TableRef[] = sourceFiles(ROOT, 'src').flatMap((f) => tableRefs(f, fs.readFileSync(path.join(ROOT, f), 'utf8'), tables));

const ownedBy = (file: string, table: string) => file.startsWith(`src/${OWNERS[table]}/`);
const isView = (file: string) => file.endsWith('.reads.ts');
const show = (r: TableRef) => `${r.file}:${r.line} ${r.write ? 'writes' : 'reads'} ${r.table} (owner: src/${OWNERS[r.table]})`;

describe('table ownership', () => {
  it('when the migrations create a table, then exactly one folder owns it', () => {
    expect([...tables].filter((t) => !OWNERS[t]).sort()).toEqual([]);
    expect(Object.keys(OWNERS).filter((t) => !tables.has(t)).sort()).toEqual([]);
  });

  it('when the scanner reads knex builders and SQL text, then it finds reads, writes and joins', () => {
    const src = [
      "db('users').where({ id }).first('name');",
      "trx('donations').insert(row);",
      "db('comments as c').join('users as u', 'u.id', 'c.user_id').select('c.id');",
      "db.raw(`select 1 from ledger_entries e where e.account = ?`);",
      "trx.raw('update fundraisers set raised_cents = 0 where id = ? for update');",
      "db.raw('insert into tips (id) values (?) on conflict do update set id = excluded.id');",
    ].join('\n');
    const got = tableRefs('src/modules/x/x.repo.ts', src, tables).map((r) => `${r.line}:${r.table}:${r.write ? 'W' : 'R'}`);
    expect(got.sort()).toEqual(['1:users:R', '2:donations:W', '3:comments:R', '3:users:R', '4:ledger_entries:R', '5:fundraisers:W', '6:tips:W']);
  });

  it('when SQL names a table, then its owner wrote it, or a read-only *.reads.ts view, or a listed exception', () => {
    const bad = refs.filter((r) => !ownedBy(r.file, r.table) && !(isView(r.file) && !r.write) && !EXCEPTIONS[`${r.file}:${r.table}`]);
    expect(bad.map(show)).toEqual([]);
  });

  it('when a table is written, then only its owner writes it (no view, no exception)', () => {
    expect(refs.filter((r) => r.write && !ownedBy(r.file, r.table)).map(show)).toEqual([]);
  });

  it('when exceptions are listed, then there are at most five and each still applies', () => {
    expect(Object.keys(EXCEPTIONS).length).toBeLessThanOrEqual(5);
    const live = new Set(refs.map((r) => `${r.file}:${r.table}`));
    expect(Object.keys(EXCEPTIONS).filter((k) => !live.has(k))).toEqual([]);
  });
});
