import { defineRoutes, route } from '../../http/define-routes';
import { requireVerifiedEmail } from '../../http/verified-email';
import { ownedProject, ownsProject } from './updates.policy';
import {
  createUpdateBody, editUpdateBody, feed, langQuery, likeAnswer, projectParams, regenerateQuery, saveTranslationBody, tabList, tabOne,
  translationEnvelope, translationParams, updateItem, updateParams,
} from './updates.schemas';
import * as service from './updates.service';
import * as translations from './translations.service';

const FLAG = 'features.project_updates';

/** PUT likes, DELETE unlikes; both idempotent and answer the count after the write. */
function likeRoute(method: 'put' | 'delete', summary: string, liked: boolean) {
  return route({
    method,
    path: '/projects/:fundraiserId/updates/:updateId/like',
    skipGlobalLimiter: true,
    summary,
    description:
      'Idempotent; answers `{ like_count, liked }` after the write. No verified email needed. 404 for unknown or withdrawn updates, updates of another campaign, and campaigns the caller cannot read.',
    auth: 'required',
    limiters: ['authenticated'],
    params: updateParams,
    response: likeAnswer,
    errors: [404],
    handler: async ({ ctx, actor, params }) => service.setLike(ctx, actor, params.fundraiserId, params.updateId, liked),
  });
}

export default defineRoutes(
  '',
  [
    route({
      method: 'get',
      path: '/projects/:fundraiserId/updates',
      summary: 'Updates of a campaign',
      description:
        'A bare array of `update` and `withdrawal` items (the campaign\'s share of each payout), newest first; withdrawn updates are left out. A campaign the caller cannot read answers 200 `[]`. With `lang`, title and body are overlaid with that locale\'s translation where one exists (`language` stays the original). liked_by_me is false for guests.',
      auth: 'optional',
      limiters: ['public'],
      params: projectParams,
      query: langQuery,
      response: feed,
      handler: async ({ ctx, actor, params, query }) => service.listFeed(ctx, actor, params.fundraiserId, query.lang),
    }),
    route({
      method: 'post',
      path: '/projects/:fundraiserId/updates',
      summary: 'Post an update',
      description:
        'Owner only; needs a verified email (403 EMAIL_NOT_VERIFIED). Title (optional, at most 200; null or blank means none) and body (1 to 20,000) are plain text: markup is removed. The language is detected offline, machine translations into the other locales are queued, and connected users are told (event `update.posted`). Answers the bare update.',
      auth: 'required',
      flag: FLAG,
      policy: ownsProject,
      params: projectParams,
      body: createUpdateBody,
      status: 201,
      response: updateItem,
      errors: [404],
      handler: async ({ req, ctx, actor, body }) => {
        requireVerifiedEmail(actor);
        return service.createUpdate(ctx, actor, ownedProject(req), body);
      },
    }),
    route({
      method: 'patch',
      path: '/projects/:fundraiserId/updates/:updateId',
      summary: 'Edit an update',
      description:
        'Owner only; needs a verified email. At least one of title and body; title null or blank removes the title. When the words change the language is detected again, machine translations are dropped and queued again and hand-made ones are flagged `outdated`. Every edit is audit-logged. 404 for withdrawn updates. Answers the bare update.',
      auth: 'required',
      flag: FLAG,
      policy: ownsProject,
      params: updateParams,
      body: editUpdateBody,
      response: updateItem,
      errors: [404],
      handler: async ({ req, ctx, actor, params, body }) => {
        requireVerifiedEmail(actor);
        return service.editUpdate(ctx, actor, ownedProject(req), params.updateId, body);
      },
    }),
    route({
      method: 'delete',
      path: '/projects/:fundraiserId/updates/:updateId',
      summary: 'Withdraw an update',
      description: 'Owner only. A soft delete: the update leaves every feed. 404 when unknown or already withdrawn.',
      auth: 'required',
      policy: ownsProject,
      params: updateParams,
      status: 204,
      errors: [404],
      handler: async ({ req, ctx, actor, params }) => service.withdrawUpdate(ctx, actor, ownedProject(req), params.updateId),
    }),
    likeRoute('put', 'Like an update', true),
    likeRoute('delete', 'Remove your like from an update', false),
    route({
      method: 'get',
      path: '/projects/:fundraiserId/translations',
      summary: 'Translations tab: every update\'s translations',
      description: 'Owner only. Every live update newest first, with its original text, language and its translation rows (a locale with no row yet is absent).',
      auth: 'required',
      policy: ownsProject,
      params: projectParams,
      response: tabList,
      errors: [404],
      handler: async ({ req, ctx }) => translations.listTab(ctx, ownedProject(req)),
    }),
    route({
      method: 'get',
      path: '/projects/:fundraiserId/updates/:updateId/translations',
      summary: 'Translations of one update',
      description: 'Owner only. 404 for a withdrawn update or one of another campaign.',
      auth: 'required',
      policy: ownsProject,
      params: updateParams,
      response: tabOne,
      errors: [404],
      handler: async ({ req, ctx, params }) => translations.getOne(ctx, ownedProject(req), params.updateId),
    }),
    route({
      method: 'put',
      path: '/projects/:fundraiserId/updates/:updateId/translations/:lang',
      summary: 'Save a hand-edited translation',
      description:
        'Owner only; audit-logged. Creates or overwrites the row in `lang` with source `human` (plain text, markup removed). 400 in the update\'s own language, and without a title when the update has one.',
      auth: 'required',
      policy: ownsProject,
      params: translationParams,
      body: saveTranslationBody,
      response: translationEnvelope,
      errors: [404],
      handler: async ({ req, ctx, actor, params, body }) =>
        translations.saveTranslation(ctx, actor, ownedProject(req), params.updateId, params.lang, body),
    }),
    route({
      method: 'post',
      path: '/projects/:fundraiserId/updates/:updateId/translations/:lang/regenerate',
      summary: 'Regenerate a machine translation',
      description:
        'Owner only; audit-logged. Translates the update now and stores the row with source `machine`. A hand-edited row is replaced only with `force=1` or `force=true` (else 409 HUMAN_TRANSLATION). 400 in the update\'s own language; 503 `Translation service unavailable` when TRANSLATE_URL is unset or the service fails.',
      auth: 'required',
      policy: ownsProject,
      params: translationParams,
      query: regenerateQuery,
      response: translationEnvelope,
      errors: [404, 409, 503],
      handler: async ({ req, ctx, actor, params, query }) =>
        translations.regenerate(ctx, actor, ownedProject(req), params.updateId, params.lang, query.force),
    }),
  ],
  { tag: 'project updates' },
);
