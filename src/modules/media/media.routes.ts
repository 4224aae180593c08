import { z } from 'zod';
import { defineRoutes, idParams, route } from '../../http/define-routes';
import { defineLimiter, fixed, MINUTE } from '../../http/rate-limits';
import { ownedFundraiser, ownsFundraiser } from '../fundraisers';
import {
  IMAGE_MAX_BYTES,
  URL_MAX,
  VIDEO_FLAG,
  VIDEO_MAX_BYTES,
  crop,
  cropBody,
  mediaUpload,
  originalAnswer,
  originalQuery,
  outcomeAnswer,
  outcomeBody,
  uploadForm,
} from './media.schemas';
import * as service from './media.service';

/** Uploads, per IP and user. */
export const mediaLimiter = defineLimiter('media', { windowMs: 15 * MINUTE, limit: fixed(30), key: 'ip+user', message: 'Too many media uploads. Please try again in a few minutes.' });

const MB = 1024 * 1024;

const UPLOAD_DOC = `Owner only (others, and deleted campaigns, 404). multipart/form-data with one file in the field \`file\`,
streamed (never held whole in memory). The type is read from the file's bytes, never from its name or part header:
images JPEG, PNG, WebP or GIF up to ${IMAGE_MAX_BYTES / MB} MB; videos MP4 or WebM up to ${VIDEO_MAX_BYTES / MB} MB only while
\`${VIDEO_FLAG}\` is on (403 with feature_key otherwise). Anything else 415 (\`accepted\` lists the types); over the
limit 413 (\`max_bytes\`), refused as soon as the stream crosses it. Images are re-encoded in their own format with the
EXIF orientation applied and every metadata block (EXIF, GPS, XMP, IPTC) removed; videos are stored as sent. The
answer's \`url\` is where the file is served; put it in the campaign's \`cover_image\` or \`images\` with PATCH.
Media limiter: 30 per 15 minutes per IP and account.`;

export default defineRoutes(
  '',
  [
    route({
      method: 'post',
      path: '/fundraisers/:id/media',
      summary: 'Upload an image or video to a campaign (owner)',
      description: UPLOAD_DOC,
      auth: 'required',
      policy: ownsFundraiser,
      limiters: [mediaLimiter],
      params: idParams,
      consumes: { mediaType: 'multipart/form-data', schema: uploadForm },
      status: 201,
      response: z.object({ data: mediaUpload }),
      errors: [403, 404, 413, 415],
      handler: async ({ req, ctx, actor }) => ({ data: await service.uploadMedia(ctx, actor, ownedFundraiser(req), req) }),
    }),
    route({
      method: 'put',
      path: '/fundraisers/:id/outcome-report',
      summary: "Publish or replace the campaign's outcome report (owner)",
      description:
        'Owner only (others, and deleted campaigns, 404). body_html is sanitised with the story allow-list and must keep some text; images are up to 20 http(s) URLs. Replaces the previous report; the slug read shows it as `outcome_report`. Media limiter (shared with uploads).',
      auth: 'required',
      policy: ownsFundraiser,
      limiters: [mediaLimiter],
      params: idParams,
      body: outcomeBody,
      response: outcomeAnswer,
      errors: [404],
      handler: async ({ req, ctx, body }) => ({ data: await service.putOutcomeReport(ctx, ownedFundraiser(req), body) }),
    }),
    route({
      method: 'post',
      path: '/image-crops',
      summary: 'Crop a stored image',
      description:
        'image_url must be an image this service stores (an upload or an earlier crop; 400 otherwise); crop is a box of whole pixels inside it (400 otherwise). The crop is rendered, stored and recorded with its original.',
      auth: 'required',
      body: cropBody,
      status: 201,
      response: z.object({ data: crop }),
      handler: async ({ ctx, actor, body }) => ({ data: await service.createCrop(ctx, actor, body) }),
    }),
    route({
      method: 'get',
      path: '/image-crops/original',
      summary: 'The original behind a cropped image, with its crops',
      description: `url: the crop's URL (at most ${URL_MAX} characters). Readable by the crop's author, the original image's owner and staff; anyone else, and a URL that is no crop, 404. Owner and staff see every crop of the original; an author sees their own.`,
      auth: 'required',
      query: originalQuery,
      response: originalAnswer,
      errors: [404],
      handler: async ({ ctx, actor, query }) => ({ data: await service.originalOf(ctx, actor, query.url) }),
    }),
  ],
  { tag: 'media' },
);
