import { defineRoutes, idParams, route } from '../../http/define-routes';
import { listQuery, noticeBody, noticeCreated, noticeList, takedownAnswer, takedownBody, URLS_MAX } from './dmca.schemas';
import { listNotices, receiveNotice, takeDown } from './dmca.service';

export default defineRoutes(
  '',
  [
    route({
      method: 'post',
      path: '/dmca/notice',
      summary: 'Send a DMCA notice',
      description:
        `No sign-in needed. Behind \`features.dmca_workflow\` and the strict limiter (5 a minute per IP). complainant_name and signature 1 to 200 ` +
        `characters, work_description 1 to 5,000 (plain text), complainant_email an address, infringing_urls 1 to ${URLS_MAX} http(s) URLs; ` +
        'good_faith and accuracy must both be true. Staff read it at GET /admin/dmca-notices.',
      auth: 'none',
      flag: 'features.dmca_workflow',
      limiters: ['strict'],
      body: noticeBody,
      status: 201,
      response: noticeCreated,
      handler: async ({ ctx, body }) => ({ data: await receiveNotice(ctx, body) }),
    }),
    route({
      method: 'get',
      path: '/admin/dmca-notices',
      summary: 'DMCA notices received (staff)',
      description: 'Newest first, paged by offset; `status` filters (received, actioned). Each notice lists the take-downs made under it.',
      auth: { role: 'staff' },
      query: listQuery,
      response: noticeList,
      handler: ({ ctx, query }) => listNotices(ctx, query),
    }),
    route({
      method: 'post',
      path: '/admin/dmca-notices/:id/takedown',
      summary: "Take named media off a campaign under a DMCA notice (staff)",
      description:
        'Body `{ fundraiser_id, media_ids?, urls? }` (at least one item; up to 50 each). media_ids are the campaign\'s uploads; urls are URLs the ' +
        "campaign shows (cover, gallery, video) or its uploads' URLs. Anything the campaign does not hold or show answers 400 and nothing changes. " +
        'The URLs leave the campaign\'s cover_image (and focal point), images and video_url, the uploads are deleted, files the service stores behind ' +
        'them are removed, each removal is recorded on the notice (which becomes `actioned`) and in the audit log. 404 for an unknown notice or campaign.',
      auth: { role: 'staff' },
      params: idParams,
      body: takedownBody,
      response: takedownAnswer,
      errors: [404],
      handler: async ({ ctx, actor, params, body }) => ({ data: await takeDown(ctx, actor, params.id, body) }),
    }),
  ],
  { tag: 'dmca' },
);
