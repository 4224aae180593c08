import { lookup } from 'node:dns/promises';
import { readFile } from 'node:fs/promises';
import { BlockList, isIP } from 'node:net';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import type { AppContext } from '../context';
import { COVER_TINT_QUEUE, coverOf, setCoverTint } from '../modules/fundraisers';

export { COVER_TINT_QUEUE };
export const GRAY_TINT = '#F9F9FA';
const MAX_BYTES = 10 * 1024 * 1024;
const TIMEOUT_MS = 8000;
const MIX = 0.05;

/** An error retrying will not fix (bad URL, 4xx, not an image): the job ends without a tint. */
export class PermanentImageError extends Error {}

// Private, loopback and link-local ranges: covers are user input, so the worker never fetches
// inside the network it runs in (SSRF).
const PRIVATE = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16],
  ['172.16.0.0', 12], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) PRIVATE.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [['::1', 128], ['::', 128], ['fc00::', 7], ['fe80::', 10]] as const)
  PRIVATE.addSubnet(net, bits, 'ipv6');

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addSubnet('::1', 128, 'ipv6');

async function assertPublicHost(host: string, allowLoopback: boolean): Promise<void> {
  const h = host.replace(/^\[|\]$/g, '');
  const addrs = isIP(h) ? [{ address: h, family: isIP(h) }] : await lookup(h, { all: true });
  for (const a of addrs) {
    // IPv4-mapped IPv6 (::ffff:10.0.0.1) is judged as the IPv4 address it carries.
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(a.address);
    const [addr, family] = mapped ? [mapped[1], 'ipv4' as const] : [a.address, a.family === 6 ? ('ipv6' as const) : ('ipv4' as const)];
    if (allowLoopback && LOOPBACK.check(addr, family)) continue;
    if (PRIVATE.check(addr, family)) throw new PermanentImageError(`refusing private address for ${host}`);
  }
}

async function readCapped(res: Response): Promise<Buffer> {
  const declared = Number(res.headers.get('content-length') ?? 0);
  if (declared > MAX_BYTES) throw new PermanentImageError('image too large');
  if (!res.body) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > MAX_BYTES) throw new PermanentImageError('image too large');
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
}

export interface LoadOptions {
  /** Tests read local files (file:// or absolute paths) and may fetch from any private address. */
  allowLocal?: boolean;
  /**
   * Loopback hosts (127.0.0.0/8, ::1) may be fetched; other private ranges (LAN, link-local cloud
   * metadata) stay refused. On outside production so a local demo can serve covers from localhost.
   */
  allowLoopback?: boolean;
  fetchImpl?: typeof fetch;
}

/** The cover's bytes: data: URL, http(s) (timeout, size cap, no private hosts), or a local file in tests. */
export async function loadImage(ref: string, opts: LoadOptions = {}): Promise<Buffer> {
  const data = /^data:image\/[a-z0-9.+-]+;base64,(.*)$/i.exec(ref);
  if (data) {
    const buf = Buffer.from(data[1], 'base64');
    if (buf.length > MAX_BYTES) throw new PermanentImageError('image too large');
    return buf;
  }
  if (opts.allowLocal && (ref.startsWith('file://') || ref.startsWith('/'))) {
    return readFile(ref.startsWith('file://') ? fileURLToPath(ref) : ref);
  }
  let url: URL;
  try {
    url = new URL(ref);
  } catch {
    throw new PermanentImageError('not a URL');
  }
  for (let hop = 0; hop < 4; hop += 1) {
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new PermanentImageError('unsupported scheme');
    if (!opts.allowLocal) await assertPublicHost(url.hostname, opts.allowLoopback ?? false);
    const res = await (opts.fetchImpl ?? fetch)(url, { redirect: 'manual', signal: AbortSignal.timeout(TIMEOUT_MS) });
    if (res.status >= 300 && res.status < 400 && res.headers.get('location')) {
      url = new URL(res.headers.get('location')!, url);
      continue;
    }
    if (res.status >= 400 && res.status < 500) throw new PermanentImageError(`image answered ${res.status}`);
    if (!res.ok) throw new Error(`image answered ${res.status}`);
    return readCapped(res);
  }
  throw new PermanentImageError('too many redirects');
}

function hueOf(r: number, g: number, b: number): { h: number; s: number; v: number } {
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  const d = max - min;
  const v = max / 255;
  const s = max === 0 ? 0 : d / max;
  let h = 0;
  if (d > 0) {
    if (max === r) h = ((g - b) / d) % 6;
    else if (max === g) h = (b - r) / d + 2;
    else h = (r - g) / d + 4;
    h *= 60;
    if (h < 0) h += 360;
  }
  return { h, s, v };
}

function hueToRgb(h: number): [number, number, number] {
  // Fully saturated, mid-lightness colour of hue h.
  const x = 1 - Math.abs(((h / 60) % 2) - 1);
  const [r, g, b] =
    h < 60 ? [1, x, 0] : h < 120 ? [x, 1, 0] : h < 180 ? [0, 1, x] : h < 240 ? [0, x, 1] : h < 300 ? [x, 0, 1] : [1, 0, x];
  return [r * 255, g * 255, b * 255];
}

const hex = (n: number) => Math.round(Math.max(0, Math.min(255, n))).toString(16).toUpperCase().padStart(2, '0');

/**
 * A very light tint from the cover: the dominant hue (saturation-weighted histogram of a small
 * thumbnail) mixed at 5% onto white. A cover with almost no colour gives #F9F9FA.
 */
export async function tintFromImage(buf: Buffer): Promise<string> {
  let raw: { data: Buffer; info: sharp.OutputInfo };
  try {
    raw = await sharp(buf, { limitInputPixels: 50_000_000 })
      .resize(48, 48, { fit: 'inside' })
      .removeAlpha()
      .toColourspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true });
  } catch (err) {
    throw new PermanentImageError(`not a readable image: ${(err as Error).message}`);
  }
  const { data, info } = raw;
  const bins = new Array<number>(36).fill(0);
  const hueSum = new Array<number>(36).fill(0);
  let chromatic = 0;
  const pixels = info.width * info.height;
  for (let i = 0; i < data.length; i += info.channels) {
    const { h, s, v } = hueOf(data[i], data[i + 1], data[i + 2]);
    if (s < 0.15 || v < 0.12) continue;
    chromatic += 1;
    const w = s * v;
    const bin = Math.min(35, Math.floor(h / 10));
    bins[bin] += w;
    hueSum[bin] += h * w;
  }
  if (pixels === 0 || chromatic / pixels < 0.08) return GRAY_TINT;
  let best = 0;
  for (let i = 1; i < 36; i += 1) if (bins[i] > bins[best]) best = i;
  const hue = hueSum[best] / bins[best];
  const [r, g, b] = hueToRgb(hue);
  return `#${hex(255 - MIX * (255 - r))}${hex(255 - MIX * (255 - g))}${hex(255 - MIX * (255 - b))}`;
}

/** Queue handler: computes and stores the tint of the fundraiser's current cover. */
export function coverTintHandler(ctx: AppContext, opts: LoadOptions = {}) {
  const allowLocal = opts.allowLocal ?? ctx.config.NODE_ENV === 'test';
  // A development server (the default NODE_ENV) may read covers served from localhost; production never does.
  const allowLoopback = opts.allowLoopback ?? ctx.config.NODE_ENV !== 'production';
  return async (payload: Record<string, unknown>): Promise<void> => {
    const id = String(payload.fundraiser_id ?? '');
    if (!id) return;
    const cover = await coverOf(ctx.db, id);
    if (!cover) return;
    let tint: string;
    try {
      tint = await tintFromImage(await loadImage(cover, { ...opts, allowLocal, allowLoopback }));
    } catch (err) {
      if (err instanceof PermanentImageError) {
        ctx.log.info({ fundraiserId: id, reason: err.message }, 'cover tint skipped');
        return;
      }
      throw err; // retried with backoff
    }
    await setCoverTint(ctx.db, id, cover, tint);
  };
}
