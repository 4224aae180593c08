import { z } from 'zod';
import { defineRoutes, route } from '../../http/define-routes';
import { ApiError } from '../../http/errors';
import { organizationPayouts, organizationPayoutsAnswer } from '../payouts';
import { readDocument } from './documents.storage';
import * as reads from './org-reads.repo';
import { orgAccess, orgPermission } from './organizations.policy';
import * as repo from './organizations.repo';
import {
  DONATION_STATUSES,
  FUNDRAISER_STATUSES,
  addMemberBody,
  adminDocumentParams,
  childBody,
  dashboard,
  document,
  documentEnvelope,
  documentQuery,
  donationStatusQuery,
  fundraiserStatusQuery,
  member,
  memberEnvelope,
  memberParams,
  orgDonation,
  orgEnvelope,
  orgFundraiser,
  organization,
  pageQuery,
  paged,
  roleBody,
  settingsBody,
  slugParams,
  userSearchAnswer,
  userSearchQuery,
} from './organizations.schemas';
import { addChild, addMember, changeMember, documentOut, memberCard, publicOrg, updateSettings, uploadDocument } from './organizations.service';

const page = (limit: number, offset: number, total: number) => ({ limit, offset, total });
const iso = (d: Date | string | null) => (d ? new Date(d).toISOString() : null);

/** A status filter outside its values answers the spec's 400 with `allowed`. */
function statusFilter<T extends string>(value: string | undefined, allowed: readonly T[]): T | undefined {
  if (value === undefined || value === '') return undefined;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new ApiError(400, 'Invalid status', `status must be one of ${allowed.join(', ')}`, { allowed: [...allowed] });
}

const ADMIN_DOC = 'Org admin: `{slug}` must match `^[a-z0-9][a-z0-9-]{0,254}$`; an unknown or malformed slug answers 404 `Organization not found` (never 403).';

export default defineRoutes(
  '/org-admin',
  [
    route({
      method: 'get',
      path: '/:slug/dashboard',
      summary: 'Organization dashboard totals',
      description: `${ADMIN_DOC} Rolled up over this organization and every organization below it. \`totalRaisedCents\`: paid gifts less what was refunded of them, in \`currency\` (the one most of the campaigns use); \`uniqueDonors\`: distinct signed-in donors of paid gifts (guests are not counted).`,
      auth: 'required',
      policy: orgPermission('org.read'),
      params: slugParams,
      response: dashboard,
      errors: [404],
      handler: async ({ req, db }) => {
        const { org } = orgAccess(req);
        return { data: await reads.dashboardTotals(db, await repo.subtreeIds(db, org.id)) };
      },
    }),
    route({
      method: 'get',
      path: '/:slug/fundraisers',
      summary: "The organization's campaigns",
      description: `${ADMIN_DOC} Non-deleted campaigns of this organization only (not its children), newest first; no private contact fields. \`status\` filters (${FUNDRAISER_STATUSES.join(', ')}; another value 400 with \`allowed\`).`,
      auth: 'required',
      policy: orgPermission('org.read'),
      params: slugParams,
      query: fundraiserStatusQuery,
      response: paged(orgFundraiser),
      errors: [404],
      handler: async ({ req, db, query }) => {
        const status = statusFilter(query.status, FUNDRAISER_STATUSES);
        const { rows, total } = await reads.orgFundraisers(db, orgAccess(req).org.id, status, query.limit, query.offset);
        return {
          data: rows.map((r: any) => ({
            id: r.id,
            title: r.title,
            slug: r.slug,
            status: r.status,
            visibility: r.visibility,
            goal_amount_cents: Number(r.goal_amount_cents),
            total_raised_cents: Number(r.raised_cents),
            currency: r.currency,
            donor_count: Number(r.donor_count),
            donation_count: Number(r.donation_count),
            cover_image: r.cover_image ?? null,
            owner_user_id: r.owner_user_id,
            org_id: r.org_id,
            end_date: r.end_date ?? null,
            approved_at: iso(r.approved_at),
            created_at: iso(r.created_at)!,
          })),
          pagination: page(query.limit, query.offset, total),
        };
      },
    }),
    route({
      method: 'get',
      path: '/:slug/donations',
      summary: "Gifts to the organization's campaigns",
      description: `${ADMIN_DOC} Newest first. \`status\` filters (${DONATION_STATUSES.join(', ')}; another value 400 with \`allowed\`). Anonymous gifts show no donor name or email; \`donor_email\` needs org.read_donors.`,
      auth: 'required',
      policy: orgPermission('org.read_donations'),
      params: slugParams,
      query: donationStatusQuery,
      response: paged(orgDonation),
      errors: [404],
      handler: async ({ req, db, query }) => {
        const a = orgAccess(req);
        const status = statusFilter(query.status, DONATION_STATUSES);
        const donors = a.can('org.read_donors');
        const { rows, total } = await reads.orgDonations(db, a.org.id, status, query.limit, query.offset);
        return {
          data: rows.map((r: any) => ({
            id: r.id,
            fundraiser: { id: r.fundraiser_id, title: r.title, slug: r.slug },
            amount_cents: Number(r.amount_cents),
            tip_cents: Number(r.tip_cents),
            refunded_cents: Number(r.refunded_cents),
            currency: String(r.currency).toUpperCase(),
            status: r.status,
            anonymous: !!r.anonymous,
            donor_name: r.anonymous ? null : (r.donor_name ?? null),
            donor_email: r.anonymous || !donors ? null : (r.donor_email ?? null),
            message: r.message ?? null,
            created_at: iso(r.created_at)!,
            paid_at: iso(r.paid_at),
          })),
          pagination: page(query.limit, query.offset, total),
        };
      },
    }),
    route({
      method: 'get',
      path: '/:slug/users/search',
      summary: 'Find people to add as members',
      description: `${ADMIN_DOC} \`q\`: an exact email address, or 2 or more characters of a public profile's name or slug (fewer: \`[]\`); at most 20, each with its role here (null when not a member). Never shows an email. Shares one 30/min bucket with adding members.`,
      auth: 'required',
      limiters: ['memberLookup'],
      policy: orgPermission('org.manage_members'),
      params: slugParams,
      query: userSearchQuery,
      response: userSearchAnswer,
      errors: [404],
      handler: async ({ req, db, query }) => {
        const q = query.q?.trim() ?? '';
        if (q.length < 2) return { data: [] };
        const rows = await repo.searchUsers(db, orgAccess(req).org.id, q, 20);
        return { data: rows.map((r: any) => ({ id: r.id, name: r.name ?? null, avatar: r.avatar ?? null, profile_slug: r.profile_slug ?? null, role: r.role ?? null })) };
      },
    }),
    route({
      method: 'get',
      path: '/:slug/members',
      summary: 'Members and their roles',
      description: `${ADMIN_DOC} Owners, then admins, then viewers. Paged.`,
      auth: 'required',
      policy: orgPermission('org.read'),
      params: slugParams,
      query: pageQuery,
      response: paged(member),
      errors: [404],
      handler: async ({ req, db, query }) => {
        const { rows, total } = await repo.members(db, orgAccess(req).org.id, query.limit, query.offset);
        return { data: rows.map(memberCard), pagination: page(query.limit, query.offset, total) };
      },
    }),
    route({
      method: 'post',
      path: '/:slug/members',
      summary: 'Add a member',
      description: `${ADMIN_DOC} \`email\` (exact address of an active account) or \`user_id\`, and \`role\`. A role carrying a permission you do not hold (an admin naming an owner) answers 403 \`Requires permission: <that permission>\`. Unknown account 404 \`User not found\`; already a member 409 \`ALREADY_MEMBER\`. Shares one 30/min bucket with the user search.`,
      auth: 'required',
      limiters: ['memberLookup'],
      policy: orgPermission('org.manage_members'),
      params: slugParams,
      body: addMemberBody,
      status: 201,
      response: memberEnvelope,
      errors: [404, 409],
      handler: async ({ req, ctx, body }) => ({ data: await addMember(ctx, orgAccess(req), body) }),
    }),
    route({
      method: 'patch',
      path: '/:slug/members/:userId',
      summary: "Change a member's role",
      description: `${ADMIN_DOC} You must hold every permission of both the member's current role and the new one (else 403 \`Requires permission\`). Not a member 404 \`Member not found\`; demoting the last owner 409 \`LAST_OWNER\`.`,
      auth: 'required',
      policy: orgPermission('org.manage_members'),
      params: memberParams,
      body: roleBody,
      response: memberEnvelope,
      errors: [404, 409],
      handler: async ({ req, ctx, params, body }) => ({ data: (await changeMember(ctx, orgAccess(req), params.userId, body.role))! }),
    }),
    route({
      method: 'delete',
      path: '/:slug/members/:userId',
      summary: 'Remove a member',
      description: `${ADMIN_DOC} 204. You must hold every permission of the member's role. Not a member 404; the last owner 409 \`LAST_OWNER\`.`,
      auth: 'required',
      policy: orgPermission('org.manage_members'),
      params: memberParams,
      status: 204,
      errors: [404, 409],
      handler: async ({ req, ctx, params }) => {
        await changeMember(ctx, orgAccess(req), params.userId, null);
      },
    }),
    route({
      method: 'patch',
      path: '/:slug/settings',
      summary: "Edit the organization's profile",
      description: `${ADMIN_DOC} Partial: name, description (plain text), website, logo (http(s) URLs), country (2 letters). The slug does not change.`,
      auth: 'required',
      policy: orgPermission('org.update_settings'),
      params: slugParams,
      body: settingsBody,
      response: orgEnvelope,
      errors: [404],
      handler: async ({ req, ctx, body }) => ({ data: publicOrg(await updateSettings(ctx, orgAccess(req), body)) }),
    }),
    route({
      method: 'post',
      path: '/:slug/documents',
      summary: 'Upload a document (PDF)',
      description: `${ADMIN_DOC} The request body is the PDF itself (\`Content-Type: application/pdf\`, at most 10 MB, else 413); the bytes must be a PDF (else 400 \`UNSUPPORTED_DOCUMENT\`). \`name\` labels it; \`is_public=true\` lists it on the public documents read.`,
      auth: 'required',
      policy: orgPermission('org.upload_documents'),
      params: slugParams,
      query: documentQuery,
      consumes: { mediaType: 'application/pdf', schema: z.string().describe('the PDF bytes') },
      status: 201,
      response: documentEnvelope,
      errors: [404, 413],
      handler: async ({ req, ctx, query }) => {
        const a = orgAccess(req);
        return { data: documentOut(await uploadDocument(ctx, a, req, query), a.org) };
      },
    }),
    route({
      method: 'get',
      path: '/:slug/documents',
      summary: "The organization's documents, public and private",
      description: `${ADMIN_DOC} Newest first. Paged.`,
      auth: 'required',
      policy: orgPermission('org.read'),
      params: slugParams,
      query: pageQuery,
      response: paged(document),
      errors: [404],
      handler: async ({ req, db, query }) => {
        const { org } = orgAccess(req);
        const { rows, total } = await repo.documents(db, org.id, { publicOnly: false, limit: query.limit, offset: query.offset });
        return { data: rows.map((d: any) => documentOut(d, org)), pagination: page(query.limit, query.offset, total) };
      },
    }),
    route({
      method: 'get',
      path: '/:slug/documents/:documentId',
      summary: 'Download a document',
      description: `${ADMIN_DOC} The PDF, public or private. Unknown document 404.`,
      auth: 'required',
      policy: orgPermission('org.read'),
      params: adminDocumentParams,
      produces: 'application/pdf',
      errors: [404],
      handler: async ({ req, ctx, params, res }) => {
        const doc = await repo.documentById(ctx.db, orgAccess(req).org.id, params.documentId);
        const bytes = doc ? await readDocument(ctx, doc.storage_key) : null;
        if (!doc || !bytes) throw new ApiError(404, 'Not found', 'Document not found');
        res.setHeader('Content-Disposition', `attachment; filename="document-${doc.id}.pdf"`);
        res.setHeader('Cache-Control', 'private, no-store');
        res.status(200).type('application/pdf').send(bytes);
      },
    }),
    route({
      method: 'get',
      path: '/:slug/payouts',
      summary: "Payouts of the organization's connected account",
      description: `${ADMIN_DOC} Newest first, paged; \`earnings\` are its campaigns' (as \`GET /payouts/earnings\` reckons a person's); \`account\` is the organization's connected account (null before onboarding: \`POST /processor/connect/onboarding { organization_id }\`, which needs org.manage_payouts).`,
      auth: 'required',
      policy: orgPermission('org.read_payouts'),
      params: slugParams,
      query: pageQuery,
      response: organizationPayoutsAnswer,
      errors: [404],
      handler: async ({ req, ctx, query }) => organizationPayouts(ctx, orgAccess(req).org.id, query.limit, query.offset),
    }),
    route({
      method: 'get',
      path: '/:slug/children',
      summary: 'Organizations directly below this one',
      description: `${ADMIN_DOC} By name.`,
      auth: 'required',
      policy: orgPermission('org.read'),
      params: slugParams,
      response: z.object({ data: z.array(organization) }),
      errors: [404],
      handler: async ({ req, db }) => ({ data: (await repo.children(db, orgAccess(req).org.id)).map(publicOrg) }),
    }),
    route({
      method: 'post',
      path: '/:slug/children',
      summary: 'Put an organization below this one',
      description: `${ADMIN_DOC} \`organization_id\` names the child; you need org.manage_children in both (unknown child 404 \`Organization not found\`, else 403 \`Requires permission: org.manage_children\`). 201 with the child; 200 when it already is one; 409 \`ALREADY_HAS_PARENT\` when it belongs to another organization, \`ORG_CYCLE\` when it is this one or above it.`,
      auth: 'required',
      policy: orgPermission('org.manage_children'),
      params: slugParams,
      body: childBody,
      status: 201,
      response: orgEnvelope,
      errors: [404, 409],
      handler: async ({ req, res, ctx, body }) => {
        const { org, created } = await addChild(ctx, orgAccess(req), body.organization_id);
        // Already linked: nothing was created, so the route's 201 does not apply.
        if (!created) {
          res.status(200).json({ data: publicOrg(org) });
          return;
        }
        return { data: publicOrg(org) };
      },
    }),
  ],
  { tag: 'organizations' },
);
