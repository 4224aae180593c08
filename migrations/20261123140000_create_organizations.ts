import type { Knex } from 'knex';

// Organizations (optionally under a parent: a conglomerate), their members with one org role
// each, and their documents. Campaigns point at their organization through fundraisers.org_id.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('organizations', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('slug').notNullable();
    t.text('name').notNullable();
    t.text('description');
    t.text('website');
    t.text('logo');
    t.text('country');
    t.uuid('parent_id').references('organizations.id');
    t.boolean('verified').notNullable().defaultTo(false);
    t.uuid('created_by').references('users.id');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  // The org-admin path rule (spec): a slug that could not be typed in a URL never gets stored.
  await knex.raw(`alter table organizations add constraint organizations_slug_chk check (slug ~ '^[a-z0-9][a-z0-9-]{0,254}$')`);
  await knex.raw('alter table organizations add constraint organizations_parent_chk check (parent_id is null or parent_id <> id)');
  await knex.raw('create unique index organizations_slug_idx on organizations (slug)');
  await knex.raw('create index organizations_parent_idx on organizations (parent_id) where parent_id is not null');
  await knex.raw('create index organizations_name_idx on organizations (lower(name), id)');

  await knex.schema.createTable('org_members', (t) => {
    t.uuid('org_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('role').notNullable();
    t.uuid('added_by').references('users.id');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['org_id', 'user_id']);
  });
  await knex.raw(`alter table org_members add constraint org_members_role_chk check (role in ('org_viewer','org_admin','org_owner'))`);
  // "Which organizations am I in" (payout accounts the caller manages, campaign creation).
  await knex.raw('create index org_members_user_idx on org_members (user_id)');

  await knex.schema.createTable('org_documents', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('org_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('name').notNullable();
    // Where the storage helper put the bytes (a key, never a full path or URL).
    t.text('storage_key').notNullable();
    t.text('content_type').notNullable();
    t.bigInteger('bytes').notNullable();
    t.boolean('is_public').notNullable().defaultTo(false);
    t.uuid('uploaded_by').references('users.id');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('create index org_documents_org_idx on org_documents (org_id, created_at desc)');

  // fundraisers.org_id existed before organizations did; now it names one.
  await knex.raw('alter table fundraisers add constraint fundraisers_org_fk foreign key (org_id) references organizations (id)');
  await knex.raw('create index fundraisers_org_idx on fundraisers (org_id, created_at desc) where org_id is not null');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists fundraisers_org_idx');
  await knex.raw('alter table fundraisers drop constraint if exists fundraisers_org_fk');
  await knex.schema.dropTable('org_documents');
  await knex.schema.dropTable('org_members');
  await knex.schema.dropTable('organizations');
}
