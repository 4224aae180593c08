import type { Response } from 'express';
import type { Actor } from '../../http/actor';

/** A viewer that has not read this much of what was written to it is cut off (it reconnects). */
const MAX_BACKLOG_BYTES = 1024 * 1024;
/** `bytes` as one HTTP/1.1 chunk (size line, data, CRLF): what res.write would send, in one buffer. */
export function chunkFrame(bytes: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n')]);
}

/** The comment line that keeps proxies from closing a quiet stream (one buffer for every viewer). */
export const HEARTBEAT = Buffer.from(':\n\n');
const HEARTBEAT_FRAME = chunkFrame(HEARTBEAT);

/** One event of a batch: donations carry their journal position, so a viewer can skip what it has. */
export interface BatchPart {
  seq?: bigint;
  text: string;
}

/** One tick's events for a campaign, serialized once for all its viewers. */
export interface Batch {
  parts: readonly BatchPart[];
  whole: Buffer;
  /** `whole` framed as a chunk once for all viewers (see `write`). */
  frame: Buffer;
  /** The first donation's position (positions grow through the batch); null without donations. */
  firstSeq: bigint | null;
}

/**
 * One open stream. Until `open()` (its replay written), what the campaign's channel sends is held,
 * so a reconnect's replay and the live events after it arrive in order with no gap or repeat.
 */
export class Viewer {
  private held: Buffer[] | null = [];
  ended = false;
  /** When something was last written to the stream (a busy one needs no heartbeat). */
  lastWrite = 0;

  constructor(
    readonly res: Response,
    readonly actor: Actor | null,
    readonly address: string,
    /** Donations at or before this position are not sent (the client has them). */
    public after: bigint,
  ) {}

  /** Writes one batch: a single write, whatever the number of events in it. */
  send(batch: Batch): void {
    if (this.ended || batch.parts.length === 0) return;
    if (batch.firstSeq === null || batch.firstSeq > this.after) {
      this.write(batch.whole, batch.frame);
    } else {
      // Only a viewer whose replay overlapped this tick: it gets its own copy without what it has.
      this.write(Buffer.from(batch.parts.filter((p) => p.seq === undefined || p.seq > this.after).map((p) => p.text).join('')));
    }
    for (const p of batch.parts) if (p.seq !== undefined && p.seq > this.after) this.after = p.seq;
  }

  /**
   * `frame` (the same bytes as one prebuilt chunk, shared by every viewer) goes straight to the
   * socket once the headers are out: one socket write instead of res.write's four (size, CRLF,
   * data, CRLF) and its cork, the bulk of a tick's cost with thousands of viewers.
   */
  write(chunk: Buffer, frame?: Buffer): void {
    if (this.ended || chunk.length === 0) return;
    if (this.held) {
      this.held.push(chunk);
      return;
    }
    this.lastWrite = Date.now();
    const socket = this.res.socket;
    if ((socket?.writableLength ?? 0) + this.res.writableLength > MAX_BACKLOG_BYTES) return this.end();
    if (frame && socket && this.res.headersSent && this.res.chunkedEncoding && !this.res.writableEnded) socket.write(frame);
    else this.res.write(chunk);
  }

  beat(): void {
    this.write(HEARTBEAT, HEARTBEAT_FRAME);
  }

  /** Writes `first` (progress and replay), then whatever was held meanwhile. */
  open(first: string): void {
    const held = this.held ?? [];
    this.held = null;
    this.write(Buffer.concat([Buffer.from(first), ...held]));
  }

  end(last: Buffer | string = ''): void {
    if (this.ended) return;
    this.ended = true;
    this.held = null;
    if (!this.res.writableEnded) this.res.end(last);
  }
}
