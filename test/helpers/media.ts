import { mkdtempSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Express } from 'express';
import sharp from 'sharp';

/** A fresh local storage directory for one test app. */
export function storageEnv(): Record<string, string> {
  return { STORAGE_DIR: mkdtempSync(join(tmpdir(), 'media-test-')) };
}

export function png(width: number, height: number, background = '#3b82f6'): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background } }).png().toBuffer();
}

/** A JPEG carrying EXIF a phone would write: GPS position, camera serial, and orientation 6 (rotate 90°). */
export function phoneJpeg(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: '#ef4444' } })
    .jpeg()
    .withMetadata({ orientation: 6 })
    .withExif({
      IFD0: { Make: 'PhoneCo', Model: 'X1', Copyright: 'secret-owner' },
      IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '51/1 30/1 0/1', GPSLongitudeRef: 'W', GPSLongitude: '0/1 7/1 0/1' },
    })
    .toBuffer();
}

/** The first bytes of an MP4 (an `ftyp` box, brand isom): enough for type detection. */
export function mp4Head(): Buffer {
  const b = Buffer.alloc(64);
  b.writeUInt32BE(24, 0);
  b.write('ftypisom', 4);
  b.writeUInt32BE(0x200, 12);
  b.write('isomiso2avc1mp41', 16);
  return b;
}

/** An EBML header with DocType webm. */
export function webmHead(): Buffer {
  return Buffer.from([
    0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81, 0x01, 0x42, 0xf7, 0x81, 0x01, 0x42, 0xf2, 0x81, 0x04, 0x42, 0xf3, 0x81,
    0x08, 0x42, 0x82, 0x84, 0x77, 0x65, 0x62, 0x6d, 0x42, 0x87, 0x81, 0x04, 0x42, 0x85, 0x81, 0x02, ...Buffer.alloc(64),
  ]);
}

/**
 * Streams a multipart upload of `head` followed by zero bytes up to `totalBytes`, without ever
 * holding the body in memory (the 200 MB video limit is tested with it), on a real listening
 * server. Resolves with the status and parsed JSON answer.
 */
export async function streamUpload(
  app: Express,
  path: string,
  headers: Record<string, string>,
  file: { head: Buffer; totalBytes: number; filename?: string; contentType?: string },
): Promise<{ status: number; body: Record<string, unknown>; sent: number }> {
  const server = http.createServer(app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  const boundary = `----test${Date.now()}`;
  const pre = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.filename ?? 'clip.mp4'}"\r\n` +
      `Content-Type: ${file.contentType ?? 'application/octet-stream'}\r\n\r\n`,
  );
  const post = Buffer.from(`\r\n--${boundary}--\r\n`);
  try {
    return await new Promise((resolve, reject) => {
      let sent = 0;
      const req = http.request(
        { host: '127.0.0.1', port, path, method: 'POST', headers: { ...headers, 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Content-Length': pre.length + file.totalBytes + post.length } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            req.destroy();
            const text = Buffer.concat(chunks).toString();
            resolve({ status: res.statusCode ?? 0, body: text ? (JSON.parse(text) as Record<string, unknown>) : {}, sent });
          });
        },
      );
      req.on('error', reject);
      const zeros = Buffer.alloc(1024 * 1024);
      let left = file.totalBytes - file.head.length;
      const pump = () => {
        while (left > 0) {
          const n = Math.min(left, zeros.length);
          left -= n;
          sent += n;
          if (!req.write(n === zeros.length ? zeros : zeros.subarray(0, n))) return void req.once('drain', pump);
        }
        req.end(post);
      };
      req.write(pre);
      req.write(file.head);
      sent += file.head.length;
      pump();
    });
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
}
