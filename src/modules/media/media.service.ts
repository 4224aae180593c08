import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { Request } from 'express';
import type { AppContext } from '../../context';
import type { Actor } from '../../http/actor';
import { hasRole } from '../../http/auth-rules';
import { ApiError, notFound } from '../../http/errors';
import { contentTypeOfKey, extensionFor } from '../../integrations/storage';
import { plainText } from '../../infra/plain-text';
import { sanitizeStory, setOutcomeReport, type FundraiserRow, type OutcomeReport } from '../fundraisers';
import { cut, reencode } from './images';
import * as repo from './media.repo';
import {
  IMAGE_MAX_BYTES,
  IMAGE_TYPES,
  VIDEO_FLAG,
  VIDEO_MAX_BYTES,
  VIDEO_TYPES,
  type cropBody,
  type outcomeBody,
} from './media.schemas';
import { receiveFile, type Admit } from './upload';
import type { z } from 'zod';

const isImage = (mime: string) => (IMAGE_TYPES as readonly string[]).includes(mime);
const isVideo = (mime: string) => (VIDEO_TYPES as readonly string[]).includes(mime);

/** The upload answer: `url` is where the stored file is served. */
function toUpload(ctx: AppContext, row: repo.MediaUploadRow) {
  return {
    id: row.id,
    kind: row.kind,
    url: ctx.storage.url(row.storage_key),
    content_type: row.content_type as (typeof IMAGE_TYPES)[number],
    bytes: Number(row.bytes),
    width: row.width,
    height: row.height,
  };
}

/**
 * A gallery upload to the campaign: images (JPEG, PNG, WebP, GIF; 10 MB) always, videos (MP4,
 * WebM; 200 MB) only with features.fundraiser_video. The type is read from the bytes; images
 * are re-encoded without their metadata; the file is stored, recorded and its URL answered.
 */
export async function uploadMedia(ctx: AppContext, actor: Actor, fundraiser: FundraiserRow, req: Request) {
  const admit: Admit = async (type) => {
    if (type && isImage(type.mime)) return { maxBytes: IMAGE_MAX_BYTES };
    if (type && isVideo(type.mime)) {
      if (!(await ctx.flags.isEnabled(VIDEO_FLAG))) {
        throw new ApiError(403, 'Feature disabled', 'Video uploads are currently turned off', { feature_key: VIDEO_FLAG });
      }
      return { maxBytes: VIDEO_MAX_BYTES };
    }
    throw new ApiError(415, 'Unsupported media type', 'Upload a JPEG, PNG, WebP or GIF image, or an MP4 or WebM video', {
      accepted: [...IMAGE_TYPES, ...VIDEO_TYPES],
    });
  };
  const got = await receiveFile(req, admit, VIDEO_MAX_BYTES);
  try {
    const id = randomUUID();
    const key = `uploads/${fundraiser.id}/${id}.${extensionFor(got.mime)}`;
    let stored: { bytes: number; width: number | null; height: number | null };
    if (isImage(got.mime)) {
      const img = await reencode(got.path, got.mime);
      await ctx.storage.put(key, img.data, { contentType: got.mime });
      stored = { bytes: img.data.length, width: img.width, height: img.height };
    } else {
      // Videos are stored as sent: re-muxing without metadata needs ffmpeg, which the service does not ship.
      await ctx.storage.put(key, createReadStream(got.path), { contentType: got.mime, size: got.bytes });
      stored = { bytes: got.bytes, width: null, height: null };
    }
    const row = await repo.insertUpload(ctx.db, {
      fundraiser_id: fundraiser.id,
      owner_user_id: actor.userId,
      kind: isImage(got.mime) ? 'image' : 'video',
      storage_key: key,
      content_type: got.mime,
      ...stored,
    });
    return toUpload(ctx, row);
  } finally {
    await got.cleanup();
  }
}

const notStored = () =>
  new ApiError(400, 'Validation failed', 'body.image_url: must be an image stored by this service', {
    details: [{ path: 'body.image_url', message: 'must be an image stored by this service' }],
  });

/** Renders and stores a crop of one of the service's stored images, and records who made it from what. */
export async function createCrop(ctx: AppContext, actor: Actor, body: z.infer<typeof cropBody>) {
  const originalKey = ctx.storage.keyOf(body.image_url);
  if (!originalKey || !isImage(contentTypeOfKey(originalKey))) throw notStored();
  const bytes = await ctx.storage.read(originalKey, IMAGE_MAX_BYTES);
  if (!bytes) throw notStored();
  const out = await cut(bytes, contentTypeOfKey(originalKey), body.crop);
  const id = randomUUID();
  const key = `crops/${actor.userId}/${id}.${extensionFor(out.contentType)}`;
  await ctx.storage.put(key, out.data, { contentType: out.contentType });
  const row = await repo.insertCrop(ctx.db, { author_user_id: actor.userId, original_key: originalKey, storage_key: key, ...body.crop });
  return { id: row.id, url: ctx.storage.url(key), original_url: ctx.storage.url(originalKey), crop: body.crop };
}

/** Who owns a stored image: its uploader, or for a crop (cropped again) that crop's author. */
async function imageOwner(ctx: AppContext, key: string): Promise<string | null> {
  return (await repo.uploaderOf(ctx.db, key)) ?? (await repo.cropByKey(ctx.db, key))?.author_user_id ?? null;
}

/**
 * The original behind a crop, with its crops: for the crop's author, the original image's owner
 * and staff; anyone else (and any URL that is no crop) gets 404. Owner and staff see every crop
 * of the original, an author their own.
 */
export async function originalOf(ctx: AppContext, actor: Actor, url: string) {
  const key = ctx.storage.keyOf(url);
  if (!key) throw notFound('Image crop');
  const crop = await repo.cropByKey(ctx.db, key);
  const originalKey = crop ? crop.original_key : key;
  const seesAll = hasRole(actor, 'staff') || (await imageOwner(ctx, originalKey)) === actor.userId;
  const allowed = seesAll || (crop ? crop.author_user_id === actor.userId : await repo.authoredCropOf(ctx.db, originalKey, actor.userId));
  if (!allowed) throw notFound('Image crop');
  const crops = await repo.cropsOf(ctx.db, originalKey, seesAll ? null : actor.userId);
  if (!crop && crops.length === 0) throw notFound('Image crop');
  return {
    original_url: ctx.storage.url(originalKey),
    crops: crops.map((c) => ({
      id: c.id,
      url: ctx.storage.url(c.storage_key),
      crop: { x: c.x, y: c.y, width: c.width, height: c.height },
      created_at: new Date(c.created_at).toISOString(),
    })),
  };
}

/** Replaces the campaign's outcome report (sanitised like the story); the slug read shows it. */
export async function putOutcomeReport(ctx: AppContext, fundraiser: FundraiserRow, body: z.infer<typeof outcomeBody>): Promise<OutcomeReport> {
  const html = sanitizeStory(body.body_html);
  if (!plainText(html)) {
    throw new ApiError(400, 'Validation failed', 'body.body_html: must contain some text', {
      details: [{ path: 'body.body_html', message: 'must contain some text' }],
    });
  }
  const report: OutcomeReport = { body_html: html, images: body.images ?? [], updated_at: new Date().toISOString() };
  await setOutcomeReport(ctx.db, fundraiser.id, report);
  return report;
}
