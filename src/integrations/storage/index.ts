import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { Config } from '../../config';
import { LocalDiskStorage } from './local';
import { S3Storage } from './s3';
import { KEY_PATTERN, type ByteRange, type StorageBackend, type StoredObject } from './port';

export { contentTypeOfKey, extensionFor, KEY_PATTERN, type ByteRange, type StorageBackend, type StoredObject } from './port';
export { LocalDiskStorage } from './local';
export { S3Storage, type S3Settings } from './s3';

/**
 * The storage port the app uses: a backend plus the public URLs of its objects. URLs are
 * `MEDIA_PUBLIC_URL/<key>`, by default `PUBLIC_URL/media/<key>`, which the service itself serves
 * from either backend; `keyOf` turns such a URL back into a key, so only the service's own
 * files are ever read back (never a fetch of an arbitrary URL).
 */
export class Storage {
  constructor(
    readonly backend: StorageBackend,
    readonly publicBase: string,
  ) {}

  get kind(): StorageBackend['kind'] {
    return this.backend.kind;
  }

  put(key: string, body: Buffer | Readable, opts: { contentType: string; size?: number }): Promise<void> {
    return this.backend.put(key, body, opts);
  }

  open(key: string, range?: ByteRange): Promise<StoredObject | null> {
    return this.backend.open(key, range);
  }

  remove(key: string): Promise<void> {
    return this.backend.remove(key);
  }

  list(prefix: string): Promise<string[]> {
    return this.backend.list(prefix);
  }

  /** The whole object, or null when missing or larger than `maxBytes`. */
  async read(key: string, maxBytes: number): Promise<Buffer | null> {
    const obj = await this.open(key);
    if (!obj) return null;
    if (obj.size > maxBytes) {
      obj.body.destroy();
      return null;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of obj.body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > maxBytes) {
        obj.body.destroy();
        return null;
      }
      chunks.push(chunk);
    }
    return Buffer.concat(chunks);
  }

  url(key: string): string {
    return `${this.publicBase}/${key}`;
  }

  /** The key behind one of this store's public URLs, else null (another host, path or a malformed key). */
  keyOf(url: string): string | null {
    const prefix = `${this.publicBase}/`;
    if (!url.startsWith(prefix)) return null;
    const key = url.slice(prefix.length).split(/[?#]/)[0];
    return KEY_PATTERN.test(key) ? key : null;
  }
}

export function createStorage(config: Config): Storage {
  const base = (config.MEDIA_PUBLIC_URL ?? `${config.PUBLIC_URL}/media`).replace(/\/+$/, '');
  const backend: StorageBackend = config.S3_BUCKET
    ? new S3Storage({
        bucket: config.S3_BUCKET,
        region: config.S3_REGION,
        endpoint: config.S3_ENDPOINT,
        accessKeyId: config.S3_ACCESS_KEY_ID,
        secretAccessKey: config.S3_SECRET_ACCESS_KEY,
      })
    : new LocalDiskStorage(config.STORAGE_DIR ?? join(config.DATA_DIR, 'uploads'));
  return new Storage(backend, base);
}
