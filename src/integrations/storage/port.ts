import type { Readable } from 'node:stream';

/** A stored object opened for reading. */
export interface StoredObject {
  body: Readable;
  contentType: string;
  /** Bytes of the whole object. */
  size: number;
}

/** Inclusive byte range of an object (HTTP Range semantics). */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Where uploads and rendered images live. Keys are the service's own (`<area>/<owner>/<file>`),
 * never a client's path. Two implementations: local disk and any S3-compatible store.
 */
export interface StorageBackend {
  readonly kind: 'local' | 's3';
  /** Stores bytes (a Buffer, or a stream of known `size`) under `key`, replacing any object there. */
  put(key: string, body: Buffer | Readable, opts: { contentType: string; size?: number }): Promise<void>;
  /** The object (only `range` of it when given; `size` stays the whole object's), or null when there is none. */
  open(key: string, range?: ByteRange): Promise<StoredObject | null>;
  remove(key: string): Promise<void>;
  /** The keys under `prefix` (`<area>/<owner>/`), in no particular order. */
  list(prefix: string): Promise<string[]>;
}

/** A key the service generated: three path segments of safe characters, no dot segments. */
export const KEY_PATTERN = /^[a-z][a-z0-9-]{0,31}\/[A-Za-z0-9-]{1,64}\/[A-Za-z0-9-]{1,64}\.[a-z0-9]{2,5}$/;

/** A listing prefix: the first two segments of a key, ending with a slash. */
const PREFIX_PATTERN = /^[a-z][a-z0-9-]{0,31}\/[A-Za-z0-9-]{1,64}\/$/;

export function assertPrefix(prefix: string): void {
  if (!PREFIX_PATTERN.test(prefix)) throw new Error(`not a storage prefix: ${prefix}`);
}

export function assertKey(key: string): void {
  if (!KEY_PATTERN.test(key)) throw new Error(`not a storage key: ${key}`);
}

const TYPES: Record<string, string> = {
  jpg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  gif: 'image/gif',
  mp4: 'video/mp4',
  webm: 'video/webm',
};

/** The media type of a key by its extension (keys are minted with the extension of their bytes). */
export function contentTypeOfKey(key: string): string {
  return TYPES[key.slice(key.lastIndexOf('.') + 1)] ?? 'application/octet-stream';
}

export function extensionFor(contentType: string): string {
  const ext = Object.entries(TYPES).find(([, t]) => t === contentType)?.[0];
  if (!ext) throw new Error(`no extension for ${contentType}`);
  return ext;
}
