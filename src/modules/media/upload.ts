import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Request } from 'express';
import busboy from 'busboy';
import { fromBuffer } from 'file-type';
import { ApiError, badRequest } from '../../http/errors';

/** What the bytes are, read from the bytes (file-type), never from the name or the part's header. */
export interface Sniffed {
  mime: string;
}

/** Decides, from the sniffed type, whether to keep reading and up to how many bytes (throws ApiError to refuse). */
export type Admit = (type: Sniffed | undefined) => Promise<{ maxBytes: number }>;

export interface Received {
  path: string;
  bytes: number;
  mime: string;
  /** Removes the spooled file (always call it). */
  cleanup: () => Promise<void>;
}

/** file-type reads at most this many leading bytes. */
const SNIFF_BYTES = 4100;

/** Counts and sniffs the file part as it streams past; refuses it as soon as a rule is broken. */
class Gate extends Transform {
  private head: Buffer[] = [];
  private headBytes = 0;
  private admitted: { maxBytes: number } | null = null;
  bytes = 0;
  mime = '';

  constructor(private readonly admit: Admit) {
    super();
  }

  private async decide(): Promise<void> {
    const head = Buffer.concat(this.head);
    const type = await fromBuffer(head);
    this.admitted = await this.admit(type ? { mime: type.mime } : undefined);
    this.mime = type!.mime;
    this.check(this.bytes);
    this.push(head);
    this.head = [];
  }

  private check(bytes: number): void {
    if (this.admitted && bytes > this.admitted.maxBytes) {
      throw new ApiError(413, 'Payload too large', `The file is larger than ${this.admitted.maxBytes} bytes`, { max_bytes: this.admitted.maxBytes });
    }
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.admitted) {
      try {
        this.check(this.bytes);
      } catch (err) {
        return done(err as Error);
      }
      return done(null, chunk);
    }
    this.head.push(chunk);
    this.headBytes += chunk.length;
    if (this.headBytes < SNIFF_BYTES) return done();
    this.decide().then(() => done(), done);
  }

  override _flush(done: TransformCallback): void {
    if (this.admitted) return done();
    if (this.headBytes === 0) return done(badRequest('The file is empty'));
    this.decide().then(() => done(), done);
  }
}

/**
 * Streams the one multipart field `file` of a request into a temporary file (busboy, no
 * buffering of the whole body): its type is read from its first bytes and `admit` decides, at
 * that point, whether it is taken and its size limit; a file over the limit is refused the
 * moment it crosses it. Other fields are ignored; a second file part is an error.
 */
export async function receiveFile(req: Request, admit: Admit, hardMaxBytes: number): Promise<Received> {
  let bb: busboy.Busboy;
  try {
    bb = busboy({ headers: req.headers, limits: { files: 2, fileSize: hardMaxBytes + 1, fields: 20, fieldSize: 8 * 1024, parts: 40 } });
  } catch (err) {
    throw badRequest(`Not a multipart/form-data body: ${(err as Error).message}`);
  }
  const dir = await mkdtemp(join(tmpdir(), 'upload-'));
  const path = join(dir, 'file');
  const cleanup = () => rm(dir, { recursive: true, force: true });

  try {
    const result = await new Promise<{ bytes: number; mime: string }>((resolve, reject) => {
      let file: Promise<{ bytes: number; mime: string }> | null = null;
      let failed = false;
      const fail = (err: unknown) => {
        if (failed) return;
        failed = true;
        req.unpipe(bb);
        // Read the rest of the body away, so the client, still sending, gets to read the answer.
        req.resume();
        reject(err);
      };
      bb.on('file', (name, stream) => {
        if (name !== 'file') return void stream.resume();
        if (file) {
          stream.resume();
          return fail(badRequest('Send one file in the field "file"'));
        }
        const gate = new Gate(admit);
        file = pipeline(stream, gate, createWriteStream(path)).then(() => ({ bytes: gate.bytes, mime: gate.mime }));
        file.catch(fail);
        // busboy truncates past fileSize; the gate has refused long before unless admit allows more than the hard cap.
        stream.on('limit', () => fail(new ApiError(413, 'Payload too large', `The file is larger than ${hardMaxBytes} bytes`, { max_bytes: hardMaxBytes })));
      });
      bb.on('error', (err) => fail(badRequest(`Unreadable multipart body: ${(err as Error).message}`)));
      bb.on('close', () => {
        if (!file) return fail(new ApiError(400, 'Validation failed', 'body.file: a file is required', { details: [{ path: 'body.file', message: 'Required' }] }));
        file.then(resolve, fail);
      });
      req.on('aborted', () => fail(badRequest('The upload was aborted')));
      req.pipe(bb);
    });
    return { path, ...result, cleanup };
  } catch (err) {
    await cleanup();
    throw err;
  }
}
