import type { Knex } from 'knex';

/**
 * Each backup and each verified restore, kept in the database so every process's /metrics
 * reports the same `backup_last_success_timestamp_seconds` and
 * `backup_last_verified_timestamp_seconds`, whichever process (the worker, the operator's CLI)
 * took or checked it. `method`: logical (pg_dump) or pgbackrest; `restore_point`: the time the
 * backup brings back.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table backup_runs (
      id bigserial primary key,
      kind text not null check (kind in ('backup', 'verify')),
      method text not null check (method in ('logical', 'pgbackrest')),
      ok boolean not null,
      archive text,
      restore_point timestamptz,
      detail text,
      finished_at timestamptz not null default now()
    )`);
  await knex.raw('create index backup_runs_kind_ok_idx on backup_runs (kind, finished_at desc) where ok');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table if exists backup_runs');
}
