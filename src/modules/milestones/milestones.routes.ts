import { defineRoutes, route } from '../../http/define-routes';
import { ownedProject, ownsProject } from '../updates';
import {
  createMilestoneBody, editMilestoneBody, fundraiserParams, langQuery, milestone, milestoneList, milestoneParams, projectParams, wrappedList,
} from './milestones.schemas';
import * as service from './milestones.service';
import { fundingStats, projectFundingStats } from './funding-stats';

const ORDER = 'Ordered by due date (undated last), then creation. With `lang`, title and description are overlaid with that locale\'s translation where one exists. 404 when the campaign is not readable.';

export default defineRoutes(
  '',
  [
    route({
      method: 'get',
      path: '/projects/:fundraiserId/milestones',
      summary: 'Milestones of a project (bare array)',
      description: ORDER,
      auth: 'optional',
      limiters: ['public'],
      params: projectParams,
      query: langQuery,
      response: milestoneList,
      errors: [404],
      handler: async ({ ctx, actor, params, query }) => service.list(ctx, actor, params.fundraiserId, query.lang),
    }),
    route({
      method: 'get',
      path: '/projects/:fundraiserId/funding-stats',
      summary: "A project's allocation, disbursement and milestone counts",
      description:
        "`{ data: { fundraiser_id, is_project, currency, raised_cents, allocated_cents (sum of milestone amounts), unallocated_cents, disbursed_cents (the campaign's shares of paid payouts), pending_disbursement_cents, disbursement_count, milestones: { total, planned, in_progress, done } } }`. A campaign that is not a project answers 200 with zeros. 404 when the campaign is not readable.",
      auth: 'optional',
      limiters: ['public'],
      params: projectParams,
      response: fundingStats,
      errors: [404],
      handler: ({ ctx, actor, params }) => projectFundingStats(ctx, actor, params.fundraiserId),
    }),
    route({
      method: 'get',
      // One parameter name per position across modules (`/fundraisers/:id/...`).
      path: '/fundraisers/:id/milestones',
      skipGlobalLimiter: true,
      summary: 'Milestones of a campaign ({ milestones })',
      description: `The rows of GET /projects/{fundraiserId}/milestones wrapped as { milestones }. ${ORDER}`,
      auth: 'optional',
      limiters: ['public'],
      params: fundraiserParams,
      query: langQuery,
      response: wrappedList,
      errors: [404],
      handler: async ({ ctx, actor, params, query }) => ({ milestones: await service.list(ctx, actor, params.id, query.lang) }),
    }),
    route({
      method: 'post',
      path: '/projects/:fundraiserId/milestones',
      summary: 'Add a milestone',
      description:
        'Owner only; project campaigns only (400 NOT_A_PROJECT). Title 1 to 200 and description plain text (markup removed). A status of `done` sets completed_at. The language is detected offline and machine translations are queued. Answers the bare row.',
      auth: 'required',
      policy: ownsProject,
      params: projectParams,
      body: createMilestoneBody,
      status: 201,
      response: milestone,
      errors: [404],
      handler: async ({ req, ctx, body }) => service.create(ctx, ownedProject(req), body),
    }),
    route({
      method: 'patch',
      path: '/projects/:fundraiserId/milestones/:milestoneId',
      summary: 'Edit a milestone',
      description:
        'Owner only; at least one field. Moving to `done` sets completed_at, leaving it clears it. Changed words are translated again. Answers the bare row; 404 for a milestone of another campaign.',
      auth: 'required',
      policy: ownsProject,
      params: milestoneParams,
      body: editMilestoneBody,
      response: milestone,
      errors: [404],
      handler: async ({ req, ctx, params, body }) => service.edit(ctx, ownedProject(req), params.milestoneId, body),
    }),
    route({
      method: 'delete',
      path: '/projects/:fundraiserId/milestones/:milestoneId',
      summary: 'Delete a milestone',
      description: 'Owner only. 204; 404 when unknown or of another campaign.',
      auth: 'required',
      policy: ownsProject,
      params: milestoneParams,
      status: 204,
      errors: [404],
      handler: async ({ req, ctx, params }) => service.remove(ctx, ownedProject(req), params.milestoneId),
    }),
  ],
  { tag: 'milestones' },
);
