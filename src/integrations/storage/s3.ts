import { DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, NoSuchKey, PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import type { Readable } from 'node:stream';
import { assertKey, assertPrefix, contentTypeOfKey, type ByteRange, type StorageBackend, type StoredObject } from './port';

export interface S3Settings {
  bucket: string;
  region: string;
  /** An S3-compatible endpoint (MinIO, ...); unset = AWS. */
  endpoint?: string;
  accessKeyId?: string;
  secretAccessKey?: string;
}

/** Any S3-compatible bucket, through the official SDK (path-style URLs, which MinIO and most stores need). */
export class S3Storage implements StorageBackend {
  readonly kind = 's3' as const;
  readonly client: S3Client;

  constructor(private readonly s: S3Settings) {
    this.client = new S3Client({
      region: s.region,
      endpoint: s.endpoint,
      forcePathStyle: Boolean(s.endpoint),
      credentials: s.accessKeyId && s.secretAccessKey ? { accessKeyId: s.accessKeyId, secretAccessKey: s.secretAccessKey } : undefined,
      // Checksums on every request are an AWS feature some compatible stores reject.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  async put(key: string, body: Buffer | Readable, opts: { contentType: string; size?: number }): Promise<void> {
    assertKey(key);
    const size = Buffer.isBuffer(body) ? body.length : opts.size;
    // A streamed body needs its length up front (PutObject sends no chunked bodies).
    if (size === undefined) throw new Error('S3 put of a stream needs its size');
    await this.client.send(
      new PutObjectCommand({ Bucket: this.s.bucket, Key: key, Body: body, ContentType: opts.contentType, ContentLength: size }),
    );
  }

  async open(key: string, range?: ByteRange): Promise<StoredObject | null> {
    assertKey(key);
    try {
      const out = await this.client.send(
        new GetObjectCommand({ Bucket: this.s.bucket, Key: key, Range: range ? `bytes=${range.start}-${range.end}` : undefined }),
      );
      // A ranged answer names the whole size in Content-Range (bytes a-b/size).
      const whole = out.ContentRange ? Number(out.ContentRange.split('/')[1]) : Number(out.ContentLength ?? 0);
      return { body: out.Body as Readable, contentType: out.ContentType ?? contentTypeOfKey(key), size: whole };
    } catch (err) {
      if (err instanceof NoSuchKey || (err instanceof S3ServiceException && err.$metadata.httpStatusCode === 404)) return null;
      throw err;
    }
  }

  async remove(key: string): Promise<void> {
    assertKey(key);
    await this.client.send(new DeleteObjectCommand({ Bucket: this.s.bucket, Key: key }));
  }

  async list(prefix: string): Promise<string[]> {
    assertPrefix(prefix);
    const keys: string[] = [];
    let token: string | undefined;
    do {
      const out = await this.client.send(new ListObjectsV2Command({ Bucket: this.s.bucket, Prefix: prefix, ContinuationToken: token }));
      for (const o of out.Contents ?? []) if (o.Key) keys.push(o.Key);
      token = out.IsTruncated ? out.NextContinuationToken : undefined;
    } while (token);
    return keys;
  }
}
