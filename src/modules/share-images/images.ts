import sharp from 'sharp';
import type { AppContext } from '../../context';

/** Covers and avatars larger than this are not drawn (uploads are capped at 10 MB anyway). */
const MAX_SOURCE_BYTES = 10 * 1024 * 1024;
const INLINE = /^data:image\/(png|jpeg|webp|gif);base64,([A-Za-z0-9+/=]+)$/;

/**
 * The bytes of an image the service already holds: one of its stored files, or an inline data:
 * URL. Anything else (a remote URL) is null: share images never fetch from the network.
 */
export async function localImageBytes(ctx: AppContext, ref: string | null): Promise<Buffer | null> {
  if (!ref) return null;
  const inline = INLINE.exec(ref);
  if (inline) {
    const buf = Buffer.from(inline[2], 'base64');
    return buf.length <= MAX_SOURCE_BYTES ? buf : null;
  }
  const key = ctx.storage.keyOf(ref);
  return key ? ctx.storage.read(key, MAX_SOURCE_BYTES) : null;
}

/**
 * The image cut to exactly `box`, centred on the focal point (0..1 each way, default the
 * middle), as a JPEG data URL for the template; null when it cannot be read.
 */
export async function fitted(
  bytes: Buffer | null,
  box: { width: number; height: number },
  focal: { x: number | null; y: number | null } = { x: null, y: null },
): Promise<string | null> {
  if (!bytes) return null;
  try {
    const meta = await sharp(bytes, { limitInputPixels: 50_000_000 }).metadata();
    const w = meta.autoOrient?.width ?? meta.width ?? 0;
    const h = meta.autoOrient?.height ?? meta.height ?? 0;
    if (!w || !h) return null;
    const scale = Math.max(box.width / w, box.height / h);
    const rw = Math.max(box.width, Math.ceil(w * scale));
    const rh = Math.max(box.height, Math.ceil(h * scale));
    const clamp = (v: number, max: number) => Math.max(0, Math.min(max, Math.round(v)));
    const left = clamp((focal.x ?? 0.5) * rw - box.width / 2, rw - box.width);
    const top = clamp((focal.y ?? 0.5) * rh - box.height / 2, rh - box.height);
    const out = await sharp(bytes, { limitInputPixels: 50_000_000 })
      .rotate()
      .resize(rw, rh, { fit: 'fill' })
      .extract({ left, top, width: box.width, height: box.height })
      .flatten({ background: '#ffffff' })
      .jpeg({ quality: 85 })
      .toBuffer();
    return `data:image/jpeg;base64,${out.toString('base64')}`;
  } catch {
    return null; // an unreadable cover leaves the gradient in its place
  }
}
