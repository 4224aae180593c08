import { defineRoutes, route } from '../../http/define-routes';
import { ORG_ADMIN_DOC, orgAccess, orgAdminPageQuery, orgPermission, orgSlugParams } from '../organizations';
import { organizationPayouts, organizationPayoutsAnswer } from './index';

/**
 * The organization admin's payouts read. It lives with payouts (whose tables it reads) and takes
 * the org admin's permission check from organizations, so the two folders depend one way only.
 */
export default defineRoutes(
  '/org-admin',
  [
    route({
      method: 'get',
      path: '/:slug/payouts',
      summary: "Payouts of the organization's connected account",
      description: `${ORG_ADMIN_DOC} Newest first, paged; \`earnings\` are its campaigns' (as \`GET /payouts/earnings\` reckons a person's); \`account\` is the organization's connected account (null before onboarding: \`POST /processor/connect/onboarding { organization_id }\`, which needs org.manage_payouts).`,
      auth: 'required',
      policy: orgPermission('org.read_payouts'),
      params: orgSlugParams,
      query: orgAdminPageQuery,
      response: organizationPayoutsAnswer,
      errors: [404],
      handler: async ({ req, ctx, query }) => organizationPayouts(ctx, orgAccess(req).org.id, query.limit, query.offset),
    }),
  ],
  // Documented with the rest of the org-admin panel.
  { tag: 'organizations' },
);
