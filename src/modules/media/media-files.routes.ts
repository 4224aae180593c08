import { pipeline } from 'node:stream/promises';
import type { Request } from 'express';
import { defineRoutes, route } from '../../http/define-routes';
import { ApiError, notFound } from '../../http/errors';
import type { ByteRange } from '../../integrations/storage';
import { mediaFileParams } from './media.schemas';

/** One `bytes=a-b`, `bytes=a-` or `bytes=-n` range within `size`; null for none or several; 'bad' when unsatisfiable. */
export function parseRange(header: string | undefined, size: number): ByteRange | null | 'bad' {
  if (!header) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return null;
  let start: number;
  let end: number;
  if (m[1] === '') {
    const n = Number(m[2]);
    if (n === 0) return 'bad';
    start = Math.max(0, size - n);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  if (!Number.isSafeInteger(start) || start >= size || end < start) return 'bad';
  return { start, end };
}

const isHead = (req: Request) => req.method === 'HEAD';

/**
 * Stored areas whose files are read only through routes that check who may see them (org
 * documents: the public documents read, or org admin with org.read on every request). Their
 * keys once used ids every member sees, so /media/ must never stream them, whatever the key.
 */
// Served only through their own signed or permission-checked routes, never by key.
const UNSERVED_AREAS = new Set(['org-documents', 'privacy-exports', 'erasure-log']);

/**
 * Stored files (uploads, crops, rendered images) under /media/, from whichever store is
 * configured, so the URLs the API hands out work with local disk and with a private bucket.
 * Keys are never reused, so answers are cacheable for a year; single byte ranges let players seek in videos.
 */
export default defineRoutes(
  '/media',
  [
    route({
      method: 'get',
      path: '/:area/:owner/:file',
      summary: 'A stored file (upload, crop, rendered image)',
      description:
        'Streams the file (uploads, crops, rendered images; never organization documents, which only their own routes serve) with its media type, `Cache-Control: public, max-age=31536000, immutable` (a key never changes) and `Accept-Ranges: bytes`; one `Range` answers 206 (416 when unsatisfiable). Unknown file 404.',
      auth: 'none',
      params: mediaFileParams,
      // The file's own type: an image or a video of the kinds uploads take (media.schemas.ts), or bytes.
      produces: ['image/*', 'video/*', 'application/octet-stream'],
      alsoAnswers: { 206: 'Partial content: the one byte range the `Range` header asked for, with `Content-Range`' },
      errors: [404, 416],
      handler: async ({ req, res, ctx, params }) => {
        if (UNSERVED_AREAS.has(params.area)) throw notFound('File');
        const key = `${params.area}/${params.owner}/${params.file}`;
        let obj = await ctx.storage.open(key);
        if (!obj) throw notFound('File');
        const range = parseRange(req.headers.range, obj.size);
        if (range === 'bad') {
          obj.body.destroy();
          res.setHeader('Content-Range', `bytes */${obj.size}`);
          throw new ApiError(416, 'Range not satisfiable', `The file has ${obj.size} bytes`);
        }
        if (range) {
          obj.body.destroy();
          obj = await ctx.storage.open(key, range);
          if (!obj) throw notFound('File');
          res.status(206).setHeader('Content-Range', `bytes ${range.start}-${range.end}/${obj.size}`);
        }
        res.setHeader('Content-Type', obj.contentType);
        res.setHeader('Content-Length', range ? range.end - range.start + 1 : obj.size);
        res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
        res.setHeader('Accept-Ranges', 'bytes');
        // The site runs on another origin and shows these files in <img> and <video>: helmet's same-origin would block it.
        res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
        // Stored files are shown, never run: no sniffing into HTML, no scripts even if one slipped in.
        res.setHeader('Content-Security-Policy', "default-src 'none'; img-src 'self'; media-src 'self'; style-src 'unsafe-inline'; sandbox");
        if (isHead(req)) {
          obj.body.destroy();
          res.end();
          return;
        }
        await pipeline(obj.body, res);
      },
    }),
  ],
  { tag: 'media', root: true },
);
