import os from 'node:os';
import path from 'node:path';
import { writeFile } from 'node:fs/promises';
import sharp from 'sharp';
import { GRAY_TINT, PermanentImageError, loadImage, tintFromImage } from '../../src/jobs/cover-tint';

const solid = (r: number, g: number, b: number) =>
  sharp({ create: { width: 16, height: 16, channels: 3, background: { r, g, b } } }).png().toBuffer();

describe('tintFromImage', () => {
  test.each([
    ['red', [220, 20, 20], '#FFF2F2'],
    ['green', [20, 200, 20], '#F2FFF2'],
    ['blue', [20, 20, 220], '#F2F2FF'],
  ])('when the cover is %s then the hue is mixed at 5%% onto white', async (_n, [r, g, b], want) => {
    expect(await tintFromImage(await solid(r, g, b))).toBe(want);
  });

  test('when the cover is black, white or gray then #F9F9FA', async () => {
    for (const v of [0, 128, 255]) expect(await tintFromImage(await solid(v, v, v))).toBe(GRAY_TINT);
  });

  test('when the tint is computed then it matches ^#[0-9A-F]{6}$ and is very light', async () => {
    const tint = await tintFromImage(await solid(200, 120, 40));
    expect(tint).toMatch(/^#[0-9A-F]{6}$/);
    for (const i of [1, 3, 5]) expect(parseInt(tint.slice(i, i + 2), 16)).toBeGreaterThanOrEqual(242);
  });

  test('when the bytes are not an image then a permanent error', async () => {
    await expect(tintFromImage(Buffer.from('nope'))).rejects.toBeInstanceOf(PermanentImageError);
  });
});

describe('loadImage', () => {
  test('when given a data: URL then its bytes', async () => {
    const buf = await solid(1, 2, 3);
    expect((await loadImage(`data:image/png;base64,${buf.toString('base64')}`)).equals(buf)).toBe(true);
  });

  test('when given a local file then only with allowLocal', async () => {
    const file = path.join(os.tmpdir(), `tint-${process.pid}.png`);
    await writeFile(file, await solid(9, 9, 9));
    expect((await loadImage(file, { allowLocal: true })).length).toBeGreaterThan(0);
    await expect(loadImage(file)).rejects.toBeInstanceOf(PermanentImageError);
  });

  test('when the URL points at a private address then it is refused without fetching', async () => {
    const fetchImpl = jest.fn() as unknown as typeof fetch;
    await expect(loadImage('http://127.0.0.1/x.png', { fetchImpl })).rejects.toBeInstanceOf(PermanentImageError);
    await expect(loadImage('http://10.1.2.3/x.png', { fetchImpl })).rejects.toBeInstanceOf(PermanentImageError);
    await expect(loadImage('http://[::ffff:127.0.0.1]/x.png', { fetchImpl })).rejects.toBeInstanceOf(PermanentImageError);
    expect(fetchImpl).not.toHaveBeenCalled();
  });

  test('when loopback is allowed then 127.0.0.1 and ::1 are fetched, other private ranges still refused', async () => {
    const buf = await solid(1, 2, 3);
    const fetchImpl = jest.fn(async () => new Response(buf)) as unknown as typeof fetch;
    expect((await loadImage('http://127.0.0.1:8080/x.png', { fetchImpl, allowLoopback: true })).equals(buf)).toBe(true);
    expect((await loadImage('http://[::1]/x.png', { fetchImpl, allowLoopback: true })).equals(buf)).toBe(true);
    for (const u of ['http://10.1.2.3/x.png', 'http://169.254.169.254/latest', 'http://192.168.1.1/x.png']) {
      await expect(loadImage(u, { fetchImpl, allowLoopback: true })).rejects.toBeInstanceOf(PermanentImageError);
    }
    expect(fetchImpl).toHaveBeenCalledTimes(2);
  });

  test('when the server answers 404 or too many bytes then permanent errors; 503 is retryable', async () => {
    const respond = (r: Response) => (async () => r) as unknown as typeof fetch;
    await expect(loadImage('http://93.184.216.34/x', { fetchImpl: respond(new Response('', { status: 404 })) })).rejects.toBeInstanceOf(PermanentImageError);
    const big = new Response('x', { headers: { 'content-length': String(20 * 1024 * 1024) } });
    await expect(loadImage('http://93.184.216.34/x', { fetchImpl: respond(big) })).rejects.toBeInstanceOf(PermanentImageError);
    const err = await loadImage('http://93.184.216.34/x', { fetchImpl: respond(new Response('', { status: 503 })) }).catch((e) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(PermanentImageError);
  });
});
