import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { dirname, join, resolve, sep } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assertKey, assertPrefix, contentTypeOfKey, KEY_PATTERN, type ByteRange, type StorageBackend, type StoredObject } from './port';

/** Files under one directory; each write lands in a temporary file renamed into place (no torn reads). */
export class LocalDiskStorage implements StorageBackend {
  readonly kind = 'local' as const;
  private readonly root: string;

  constructor(dir: string) {
    this.root = resolve(dir);
  }

  private pathOf(key: string): string {
    assertKey(key);
    const p = resolve(this.root, key);
    // The key pattern already forbids dot segments; this keeps any future pattern honest.
    if (!p.startsWith(this.root + sep)) throw new Error(`key escapes the storage directory: ${key}`);
    return p;
  }

  async put(key: string, body: Buffer | Readable, _opts: { contentType: string; size?: number }): Promise<void> {
    const target = this.pathOf(key);
    await mkdir(dirname(target), { recursive: true });
    const tmp = join(dirname(target), `.${randomUUID()}.part`);
    try {
      await pipeline(Buffer.isBuffer(body) ? Readable.from([body]) : body, createWriteStream(tmp, { flags: 'wx' }));
      await rename(tmp, target);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
  }

  async open(key: string, range?: ByteRange): Promise<StoredObject | null> {
    const p = this.pathOf(key);
    let size: number;
    try {
      const s = await stat(p);
      if (!s.isFile()) return null;
      size = s.size;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    return { body: createReadStream(p, range ? { start: range.start, end: range.end } : undefined), contentType: contentTypeOfKey(key), size };
  }

  async remove(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  async list(prefix: string): Promise<string[]> {
    assertPrefix(prefix);
    try {
      // Files being written are dot-named `.part` files: only whole objects are listed.
      return (await readdir(resolve(this.root, prefix))).map((f) => `${prefix}${f}`).filter((k) => KEY_PATTERN.test(k));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
  }
}
