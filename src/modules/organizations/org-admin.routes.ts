import { z } from 'zod';
import { defineRoutes, route } from '../../http/define-routes';
import * as reads from './organizations.campaigns.reads';
import { orgAccess, orgPermission } from './organizations.policy';
import * as repo from './organizations.repo';
import {
  DONATION_STATUSES,
  FUNDRAISER_STATUSES,
  childBody,
  dashboard,
  donationStatusQuery,
  fundraiserStatusQuery,
  orgDonation,
  orgEnvelope,
  orgFundraiser,
  organization,
  paged,
  slugParams,
} from './organizations.schemas';
import { addChild, publicOrg } from './organizations.service';
import { ADMIN_DOC, iso, page, statusFilter } from './org-admin.shared';

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
      alsoAnswers: { 200: 'Already a child of this organization: nothing changed' },
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
