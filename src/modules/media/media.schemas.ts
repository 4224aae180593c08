import { z } from 'zod';
import { uuid } from '../../http/define-routes';
import { int32 } from '../../http/schema-helpers';

export const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/webp', 'image/gif'] as const;
export const VIDEO_TYPES = ['video/mp4', 'video/webm'] as const;
export const IMAGE_MAX_BYTES = 10 * 1024 * 1024;
export const VIDEO_MAX_BYTES = 200 * 1024 * 1024;
export const URL_MAX = 2048;
export const VIDEO_FLAG = 'features.fundraiser_video';

export const mediaUpload = z
  .object({
    id: uuid,
    kind: z.enum(['image', 'video']),
    url: z.string(),
    content_type: z.enum([...IMAGE_TYPES, ...VIDEO_TYPES]),
    bytes: z.number().int(),
    width: z.number().int().nullable(),
    height: z.number().int().nullable(),
  })
  .meta({ id: 'MediaUpload' });

export const uploadForm = z.object({
  file: z.string().meta({ format: 'binary' }).describe('the image or video; its type is read from its bytes'),
});

const cropBox = z.object({
  x: int32(0),
  y: int32(0),
  width: int32(1),
  height: int32(1),
});

const storedUrl = z.string().trim().min(1).max(URL_MAX);

export const cropBody = z.object({
  image_url: storedUrl.describe('an image stored by this service (an upload URL or an earlier crop)'),
  crop: cropBox.describe('pixels of the original, inside its bounds'),
});

export const crop = z
  .object({ id: uuid, url: z.string(), original_url: z.string(), crop: cropBox })
  .meta({ id: 'ImageCrop' });

export const originalQuery = z.object({
  url: storedUrl.describe('the URL of a crop (or of an original with crops), at most 2048 characters'),
});

export const originalAnswer = z.object({
  data: z.object({
    original_url: z.string(),
    crops: z.array(z.object({ id: uuid, url: z.string(), crop: cropBox, created_at: z.string() })),
  }),
});

const httpUrl = z
  .string()
  .trim()
  .max(URL_MAX)
  .regex(/^[Hh][Tt][Tt][Pp][Ss]?:\/\/[^\s/]+\S*$/, 'must be an http(s) URL');

export const OUTCOME_HTML_MAX = 20_000;
export const outcomeBody = z.object({
  body_html: z.string().max(OUTCOME_HTML_MAX).describe('sanitised with the story allow-list; some text must remain'),
  images: z.array(httpUrl).max(20).optional().describe('at most 20 http(s) image URLs; omitted keeps none'),
});

export const outcomeAnswer = z.object({
  data: z.object({ body_html: z.string(), images: z.array(z.string()), updated_at: z.string() }),
});

/** The path of a stored file under /media/ (keys are `<area>/<owner>/<file>`). */
export const mediaFileParams = z.object({
  area: z.string().regex(/^[a-z][a-z0-9-]{0,31}$/),
  owner: z.string().regex(/^[A-Za-z0-9-]{1,64}$/),
  file: z.string().regex(/^[A-Za-z0-9-]{1,64}\.[a-z0-9]{2,5}$/),
});
