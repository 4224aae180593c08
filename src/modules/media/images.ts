import sharp from 'sharp';
import { ApiError, badRequest } from '../../http/errors';

/** Decompression bombs stop here: a 10 MB file may not unpack into more than this many pixels. */
const MAX_PIXELS = 50_000_000;

export interface Encoded {
  data: Buffer;
  contentType: string;
  width: number;
  height: number;
}

function encoder(img: sharp.Sharp, contentType: string): sharp.Sharp {
  switch (contentType) {
    case 'image/jpeg':
      return img.jpeg({ quality: 90 });
    case 'image/png':
      return img.png();
    case 'image/webp':
      return img.webp({ quality: 90 });
    case 'image/gif':
      return img.gif();
    default:
      throw new Error(`no encoder for ${contentType}`);
  }
}

function unreadable(err: unknown): ApiError {
  const msg = (err as Error).message ?? '';
  if (/pixel limit/i.test(msg)) return badRequest(`The image has more than ${MAX_PIXELS} pixels`);
  return new ApiError(415, 'Unsupported media type', 'The file is not a readable image');
}

/**
 * Re-encodes an uploaded image in its own format: the EXIF orientation is applied to the pixels
 * and every metadata block (EXIF with GPS position and camera serials, XMP, IPTC) is left
 * behind, since sharp writes none unless asked. Animated GIF and WebP keep their frames.
 */
export async function reencode(input: string | Buffer, contentType: string): Promise<Encoded> {
  try {
    const meta = await sharp(input, { limitInputPixels: MAX_PIXELS }).metadata();
    const animated = (meta.pages ?? 1) > 1;
    let img = sharp(input, { animated, limitInputPixels: MAX_PIXELS });
    // Frames of an animation carry no orientation to apply.
    if (!animated) img = img.rotate();
    const { data, info } = await encoder(img, contentType).toBuffer({ resolveWithObject: true });
    // Read without `animated`, the metadata's height is one frame's.
    const height = animated ? (meta.pageHeight ?? meta.height ?? info.height) : info.height;
    return { data, contentType, width: info.width, height };
  } catch (err) {
    throw unreadable(err);
  }
}

/** A box of a stored image, in its format (a GIF's first frame as PNG). */
export async function cut(input: Buffer, contentType: string, box: { x: number; y: number; width: number; height: number }): Promise<Encoded> {
  let meta: sharp.Metadata;
  try {
    meta = await sharp(input, { limitInputPixels: MAX_PIXELS }).metadata();
  } catch (err) {
    throw unreadable(err);
  }
  const width = meta.width ?? 0;
  const height = meta.pageHeight ?? meta.height ?? 0;
  if (box.x + box.width > width || box.y + box.height > height) {
    throw new ApiError(400, 'Validation failed', `body.crop: the box must lie inside the image (${width}x${height})`, {
      details: [{ path: 'body.crop', message: `must lie inside the image (${width}x${height})` }],
    });
  }
  const outType = contentType === 'image/gif' ? 'image/png' : contentType;
  const img = sharp(input, { limitInputPixels: MAX_PIXELS }).extract({ left: box.x, top: box.y, width: box.width, height: box.height });
  const { data, info } = await encoder(img, outType).toBuffer({ resolveWithObject: true });
  return { data, contentType: outType, width: info.width, height: info.height };
}
