import { z } from 'zod';
import { uuid } from '../../http/define-routes';
import { SHARE_CHANNELS } from '../fundraisers';

/** A profile slug (lower-cased before lookup) or an opaque share code. */
export const REF_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

export const clickBody = z.object({
  fundraiser_id: uuid,
  ref: z.string().regex(REF_PATTERN, 'must be a profile slug or share code (letters, digits, - and _; at most 64)')
    .describe('The referrer\'s profile slug, or a share code'),
  channel: z.enum(SHARE_CHANNELS).nullable().optional().describe('Where the link was shared (the share-channels names)'),
});
export type ClickBody = z.infer<typeof clickBody>;
