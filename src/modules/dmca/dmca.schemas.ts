import { z } from 'zod';
import { uuid } from '../../http/define-routes';
import { pageLimit, pageOffset } from '../../http/schema-helpers';

export const URL_MAX = 2048;
export const URLS_MAX = 50;

const httpUrl = z
  .string()
  .max(URL_MAX)
  .refine((v) => {
    try {
      return ['http:', 'https:'].includes(new URL(v).protocol);
    } catch {
      return false;
    }
  }, 'must be an http(s) URL');

// Raw strings are bounded at four times the cleaned limit: markup is removed before the real bound applies.
export const noticeBody = z.object({
  complainant_name: z.string().max(800).describe('plain text, 1 to 200 characters'),
  complainant_email: z.email().max(254),
  work_description: z.string().max(20_000).describe('the copyrighted work; plain text, 1 to 5,000 characters'),
  infringing_urls: z.array(httpUrl).min(1).max(URLS_MAX).describe(`1 to ${URLS_MAX} http(s) URLs of up to ${URL_MAX} characters`),
  good_faith: z.literal(true).describe('the good-faith statement; must be true'),
  accuracy: z.literal(true).describe('the accuracy statement, under penalty of perjury; must be true'),
  signature: z.string().max(800).describe('the full legal name as signature; plain text, 1 to 200 characters'),
});

export const noticeCreated = z.object({ data: z.object({ id: z.string(), status: z.literal('received') }) });

export const listQuery = z.object({
  limit: pageLimit(),
  offset: pageOffset(),
  status: z.enum(['received', 'actioned']).optional(),
});

const takedown = z.object({ id: z.string(), notice_id: z.string(), fundraiser_id: z.string(), staff_user_id: z.string().nullable(), url: z.string(), media_id: z.string().nullable(), created_at: z.string() });

export const noticeRead = z.object({
  id: z.string(),
  complainant_name: z.string(),
  complainant_email: z.string(),
  work_description: z.string(),
  infringing_urls: z.array(z.string()),
  signature: z.string(),
  status: z.enum(['received', 'actioned']),
  created_at: z.string(),
  actioned_at: z.string().nullable(),
  takedowns: z.array(takedown),
}).meta({ id: 'DmcaNotice' });

export const noticeList = z.object({
  data: z.array(noticeRead),
  pagination: z.object({ limit: z.number().int(), offset: z.number().int(), total: z.number().int() }),
});

export const takedownBody = z
  .object({
    fundraiser_id: uuid,
    media_ids: z.array(uuid).max(URLS_MAX).optional(),
    urls: z.array(z.string().min(1).max(URL_MAX)).max(URLS_MAX).optional(),
  })
  .refine((b) => (b.media_ids?.length ?? 0) + (b.urls?.length ?? 0) > 0, { message: 'name at least one of media_ids or urls', path: ['media_ids'] });

export const takedownAnswer = z.object({
  data: z.object({ notice_id: z.string(), fundraiser_id: z.string(), status: z.literal('actioned'), removed: z.array(takedown) }),
});
