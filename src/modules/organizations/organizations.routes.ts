import { defineRoutes, route } from '../../http/define-routes';
import { defineLimiter, fixed, HOUR } from '../../http/rate-limits';
import { ApiError } from '../../http/errors';
import { readDocument } from './documents.storage';
import * as reads from './organizations.campaigns.reads';
import { requireOrganization } from './organizations.policy';
import * as people from './organizations.members.reads';
import * as repo from './organizations.repo';
import {
  createOrgBody,
  document,
  documentParams,
  idOrSlugParams,
  listQuery,
  member,
  orgEnvelope,
  orgUpdate,
  organization,
  pageQuery,
  paged,
  stats,
} from './organizations.schemas';
import { createOrganization, documentOut, memberCard, publicOrg } from './organizations.service';

/** Organization registrations, per IP and user. */
export const orgCreationLimiter = defineLimiter('orgCreation', { windowMs: HOUR, limit: fixed(5), key: 'ip+user', message: 'Too many organization registrations. Please try again later.' });

const page = (limit: number, offset: number, total: number) => ({ limit, offset, total });


export default defineRoutes(
  '/organizations',
  [
    route({
      method: 'get',
      path: '/',
      skipGlobalLimiter: true,
      summary: 'Organizations',
      description: 'Every organization, by name; `q` matches the name or slug (case-insensitive substring). Paged `{ data, pagination }`.',
      auth: 'none',
      limiters: ['public'],
      query: listQuery,
      response: paged(organization),
      handler: async ({ db, query }) => {
        const q = query.q?.trim() || undefined;
        const { rows, total } = await repo.list(db, q, query.limit, query.offset);
        return { data: rows.map(publicOrg), pagination: page(query.limit, query.offset, total) };
      },
    }),
    route({
      method: 'post',
      path: '/',
      summary: 'Register an organization',
      description:
        'Needs a verified email (403 `EMAIL_NOT_VERIFIED`). You become its `org_owner`. `slug` defaults to one derived from the name (a numeric suffix keeps it unique); a taken slug answers 409 `SLUG_TAKEN`. `parent_id` registers it under an organization where you hold `org.manage_children` (unknown 404 `Organization not found`, else 403 `Requires permission: org.manage_children`). Name and description are plain text. 5 registrations an hour per IP and account.',
      auth: 'required',
      limiters: [orgCreationLimiter],
      body: createOrgBody,
      status: 201,
      response: orgEnvelope,
      errors: [403, 404, 409],
      handler: async ({ ctx, actor, body }) => ({ data: publicOrg(await createOrganization(ctx, actor, body)) }),
    }),
    route({
      method: 'get',
      path: '/:idOrSlug',
      skipGlobalLimiter: true,
      summary: 'An organization by id or slug',
      auth: 'none',
      limiters: ['public'],
      params: idOrSlugParams,
      response: orgEnvelope,
      errors: [404],
      handler: async ({ db, params }) => {
        const org = await requireOrganization(db, params.idOrSlug);
        return { data: publicOrg(org) };
      },
    }),
    route({
      method: 'get',
      path: '/:idOrSlug/stats',
      skipGlobalLimiter: true,
      summary: "An organization's public numbers",
      description:
        'Over its publicly readable campaigns (live, not private, not deleted): `total_raised_cents` (their raised totals), `fundraiser_count`, `donor_count` (distinct donors); `member_count` counts its members. Child organizations are not included (their own stats read has them).',
      auth: 'none',
      limiters: ['public'],
      params: idOrSlugParams,
      response: stats,
      errors: [404],
      handler: async ({ db, params }) => {
        const org = await requireOrganization(db, params.idOrSlug);
        return { data: await reads.publicStats(db, org.id) };
      },
    }),
    route({
      method: 'get',
      path: '/:idOrSlug/members',
      skipGlobalLimiter: true,
      summary: "An organization's members",
      description: 'Public profile card and role of each member (owners, then admins, then viewers); never an email; members with a private profile or an inactive account are left out. Paged.',
      auth: 'none',
      limiters: ['public'],
      params: idOrSlugParams,
      query: pageQuery,
      response: paged(member),
      errors: [404],
      handler: async ({ db, params, query }) => {
        const org = await requireOrganization(db, params.idOrSlug);
        const { rows, total } = await people.members(db, org.id, query.limit, query.offset, { publicOnly: true });
        return { data: rows.map(memberCard), pagination: page(query.limit, query.offset, total) };
      },
    }),
    route({
      method: 'get',
      path: '/:idOrSlug/updates',
      skipGlobalLimiter: true,
      summary: "Project updates of an organization's campaigns",
      description: 'Updates posted on its public campaigns (live, not deleted), newest first; withdrawn updates are left out, and so are unlisted campaigns (readable with their link only, never listed). Paged.',
      auth: 'none',
      limiters: ['public'],
      params: idOrSlugParams,
      query: pageQuery,
      response: paged(orgUpdate),
      errors: [404],
      handler: async ({ db, params, query }) => {
        const org = await requireOrganization(db, params.idOrSlug);
        const { rows, total } = await reads.orgUpdates(db, org.id, query.limit, query.offset);
        return {
          data: rows.map((r: any) => ({
            id: r.id,
            fundraiser: { id: r.fundraiser_id, title: r.fundraiser_title, slug: r.fundraiser_slug },
            type: 'update' as const,
            title: r.title ?? null,
            body: r.body,
            language: r.language,
            like_count: Number(r.like_count),
            created_at: new Date(r.created_at).toISOString(),
            edited_at: r.edited_at ? new Date(r.edited_at).toISOString() : null,
          })),
          pagination: page(query.limit, query.offset, total),
        };
      },
    }),
    route({
      method: 'get',
      path: '/:idOrSlug/documents/public',
      skipGlobalLimiter: true,
      summary: "An organization's public documents",
      description: 'Documents its admins marked public, newest first; each `url` downloads the PDF. Paged.',
      auth: 'none',
      limiters: ['public'],
      params: idOrSlugParams,
      query: pageQuery,
      response: paged(document),
      errors: [404],
      handler: async ({ db, params, query }) => {
        const org = await requireOrganization(db, params.idOrSlug);
        const { rows, total } = await repo.documents(db, org.id, { publicOnly: true, limit: query.limit, offset: query.offset });
        return { data: rows.map((d: any) => documentOut(d, org)), pagination: page(query.limit, query.offset, total) };
      },
    }),
    route({
      method: 'get',
      path: '/:idOrSlug/documents/:documentId',
      skipGlobalLimiter: true,
      summary: 'Download a public document',
      description: 'The PDF of a public document. A private or unknown document answers 404 (private ones are read through org admin).',
      auth: 'none',
      limiters: ['public'],
      params: documentParams,
      produces: 'application/pdf',
      errors: [404],
      handler: async ({ ctx, params, res }) => {
        const org = await requireOrganization(ctx.db, params.idOrSlug);
        const doc = await repo.documentById(ctx.db, org.id, params.documentId);
        const bytes = doc?.is_public ? await readDocument(ctx, doc.storage_key) : null;
        if (!doc || !bytes) throw new ApiError(404, 'Not found', 'Document not found');
        res.setHeader('Content-Disposition', `inline; filename="document-${doc.id}.pdf"`);
        res.setHeader('Cache-Control', 'public, max-age=300');
        res.status(200).type('application/pdf').send(bytes);
      },
    }),
  ],
  { tag: 'organizations' },
);
