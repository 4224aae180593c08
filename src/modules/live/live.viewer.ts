import type { Response } from 'express';
import type { Actor } from '../../http/actor';

/** A viewer that has not read this much of what was written to it is cut off (it reconnects). */
const MAX_BACKLOG_BYTES = 1024 * 1024;

/** One event of a batch: donations carry their journal position, so a viewer can skip what it has. */
export interface BatchPart {
  seq?: bigint;
  text: string;
}

/**
 * One open stream. Until `open()` (its replay written), what the campaign's channel sends is held,
 * so a reconnect's replay and the live events after it arrive in order with no gap or repeat.
 */
export class Viewer {
  private held: string[] | null = [];
  ended = false;

  constructor(
    readonly res: Response,
    readonly actor: Actor | null,
    readonly address: string,
    /** Donations at or before this position are not sent (the client has them). */
    public after: bigint,
  ) {}

  /** Writes one batch: a single write, whatever the number of events in it. */
  send(parts: readonly BatchPart[], whole: string): void {
    if (this.ended || parts.length === 0) return;
    const text = parts.some((p) => p.seq !== undefined && p.seq <= this.after) ? parts.filter((p) => p.seq === undefined || p.seq > this.after).map((p) => p.text).join('') : whole;
    for (const p of parts) if (p.seq !== undefined && p.seq > this.after) this.after = p.seq;
    this.write(text);
  }

  write(text: string): void {
    if (this.ended || text === '') return;
    if (this.held) {
      this.held.push(text);
      return;
    }
    if (this.res.writableLength > MAX_BACKLOG_BYTES) return this.end();
    this.res.write(text);
  }

  /** Writes `first` (progress and replay), then whatever was held meanwhile. */
  open(first: string): void {
    const held = this.held ?? [];
    this.held = null;
    this.write(first + held.join(''));
  }

  end(last = ''): void {
    if (this.ended) return;
    this.ended = true;
    this.held = null;
    if (!this.res.writableEnded) this.res.end(last);
  }
}
