import { z } from 'zod';
import { defineRoutes, route } from '../../http/define-routes';
import { defineLimiter, fixed, MINUTE } from '../../http/rate-limits';
import { ApiError } from '../../http/errors';
import { readDocument } from './documents.storage';
import { orgAccess, orgPermission } from './organizations.policy';
import * as people from './organizations.members.reads';
import * as repo from './organizations.repo';
import {
  addMemberBody,
  adminDocumentParams,
  document,
  documentEnvelope,
  documentQuery,
  member,
  memberEnvelope,
  memberParams,
  orgEnvelope,
  pageQuery,
  paged,
  roleBody,
  settingsBody,
  slugParams,
  userSearchAnswer,
  userSearchQuery,
} from './organizations.schemas';
import {
  addMember,
  changeMember,
  documentOut,
  memberCard,
  publicOrg,
  updateSettings,
  uploadDocument,
} from './organizations.service';
import { ADMIN_DOC, page } from './org-admin.shared';

/** Member lookups by org admins, per user. */
export const memberLookupLimiter = defineLimiter('memberLookup', { windowMs: MINUTE, limit: fixed(30), key: 'user', message: 'Too many member lookups. Please wait a minute and try again.' });

/** Members and documents of the org-admin panel (the rest of it is in org-admin.routes.ts). */
export default defineRoutes(
  '/org-admin',
  [
    route({
      method: 'get',
      path: '/:slug/users/search',
      summary: 'Find people to add as members',
      description: `${ADMIN_DOC} \`q\`: an exact email address, or 2 or more characters of a public profile's name or slug (fewer: \`[]\`); at most 20, each with its role here (null when not a member). Never shows an email. Shares one 30/min bucket with adding members.`,
      auth: 'required',
      limiters: [memberLookupLimiter],
      policy: orgPermission('org.manage_members'),
      params: slugParams,
      query: userSearchQuery,
      response: userSearchAnswer,
      errors: [404],
      handler: async ({ req, db, query }) => {
        const q = query.q?.trim() ?? '';
        if (q.length < 2) return { data: [] };
        const rows = await people.searchUsers(db, orgAccess(req).org.id, q, 20);
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
        const { rows, total } = await people.members(db, orgAccess(req).org.id, query.limit, query.offset);
        return { data: rows.map(memberCard), pagination: page(query.limit, query.offset, total) };
      },
    }),
    route({
      method: 'post',
      path: '/:slug/members',
      summary: 'Add a member',
      description: `${ADMIN_DOC} \`email\` (exact address of an active account) or \`user_id\`, and \`role\`. A role carrying a permission you do not hold (an admin naming an owner) answers 403 \`Requires permission: <that permission>\`. Unknown account 404 \`User not found\`; already a member 409 \`ALREADY_MEMBER\`. Shares one 30/min bucket with the user search.`,
      auth: 'required',
      limiters: [memberLookupLimiter],
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
      description: `${ADMIN_DOC} The PDF, public or private, as an attachment with \`Cache-Control: private, no-store\`; org.read is checked on every request (a removed member is refused). This is the only URL that serves a private document's bytes. Unknown document 404.`,
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
  ],
  { tag: 'organizations' },
);
