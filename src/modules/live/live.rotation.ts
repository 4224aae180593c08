import { SLOTS, sliced, stepPlan, tickMs } from './live.pacing';
import { chunkFrame, type Batch, type Viewer } from './live.viewer';

/** A batch kept until every viewer has it: by then `visited` has reached `due`. */
interface Logged {
  batch: Batch;
  due: number;
}

/** A viewer's last event, written once it has every batch up to `after`. */
interface Ending {
  after: number;
  last: Buffer;
}

/**
 * How one campaign's batches reach its viewers in one process: each viewer has one of SLOTS slots
 * and a turn visits a few slots, so every viewer is written once per tick as before, but a big
 * audience is written a slice at a time all through the tick instead of all at once. A burst of
 * 10,000 writes held the event loop (and on a cluster, every process and HAProxy at once) for a
 * few hundred ms twice a second, and requests arriving then waited behind it; spread out, the same
 * work leaves them a turn every few ms. A gift still waits at most one tick for its viewer's turn.
 */
export class Rotation {
  private readonly slots: Set<Viewer>[] = Array.from({ length: SLOTS }, () => new Set<Viewer>());
  private readonly endings = new Map<Viewer, Ending>();
  private log: Logged[] = [];
  /** The number of the log's first batch (batches are numbered from 0 as they come). */
  private first = 0;
  /** Slots visited so far: a batch logged when this was V is with every viewer once it reaches V + SLOTS. */
  private visited = 0;
  private owedUntil = 0;
  private pos = 0;
  private joined = 0;
  private lastTurn = -Infinity;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private running: Promise<void> | null = null;
  size = 0;

  constructor(private readonly onTurn: (ms: number) => void) {}

  private get end(): number {
    return this.first + this.log.length;
  }

  /** A new viewer gets what is logged from now on (what came before is its replay's). */
  add(v: Viewer): void {
    v.slot = this.joined++ % SLOTS;
    v.delivered = this.end;
    this.slots[v.slot]!.add(v);
    this.size += 1;
  }

  remove(v: Viewer): void {
    if (this.slots[v.slot]?.delete(v)) this.size -= 1;
    this.endings.delete(v);
  }

  /** Logs one read's batch (if it had events) and the streams it ends, for every viewer's next turn. */
  push(batch: Batch | null, endings: ReadonlyMap<Viewer, Buffer>): void {
    if (batch) this.log.push({ batch, due: this.visited + SLOTS });
    for (const [v, last] of endings) this.endings.set(v, { after: this.end, last });
    this.owedUntil = this.visited + SLOTS;
    this.start();
  }

  private start(): void {
    if (this.timer || this.running || this.stopped) return;
    const { everyMs } = stepPlan(this.size, tickMs(this.size));
    this.timer = setTimeout(() => {
      this.timer = null;
      this.running = this.turn().finally(() => {
        this.running = null;
        if (this.visited < this.owedUntil) this.start();
      });
    }, Math.max(0, this.lastTurn + everyMs - Date.now()));
  }

  /** One turn: the next slots' viewers get every batch they lack, as one write each. */
  private async turn(): Promise<void> {
    this.lastTurn = Date.now();
    const started = performance.now();
    const { width } = stepPlan(this.size, tickMs(this.size));
    const due: Viewer[] = [];
    for (let i = 0; i < width; i += 1) for (const v of this.slots[(this.pos + i) % SLOTS]!) due.push(v);
    this.pos = (this.pos + width) % SLOTS;
    this.visited += width;
    // What is logged during this turn's slices waits for the next visit (see `due` in push).
    const upTo = this.end;
    const merged = new Map<number, Batch>();
    await sliced(due, (v) => {
      if (v.ended) return;
      if (v.delivered < upTo) {
        let batch = merged.get(v.delivered);
        if (!batch) merged.set(v.delivered, (batch = this.between(v.delivered, upTo)));
        v.send(batch);
        v.delivered = upTo;
      }
      const ending = this.endings.get(v);
      if (ending && v.delivered >= ending.after) {
        this.endings.delete(v);
        v.end(ending.last);
      }
    });
    while (this.log.length > 0 && this.log[0]!.due <= this.visited) {
      this.log.shift();
      this.first += 1;
    }
    if (due.length > 0) this.onTurn(performance.now() - started);
  }

  /** Batches [from, to) as one: the bytes (and their chunk frame) built once for every viewer that lacks the same ones. */
  private between(from: number, to: number): Batch {
    const batches = this.log.slice(Math.max(0, from - this.first), to - this.first).map((l) => l.batch);
    if (batches.length === 1) return batches[0]!;
    const whole = Buffer.concat(batches.map((b) => b.whole));
    return {
      parts: batches.flatMap((b) => b.parts),
      whole,
      frame: chunkFrame(whole),
      firstSeq: batches.find((b) => b.firstSeq !== null)?.firstSeq ?? null,
    };
  }

  /** No more turns; one under way finishes its slices. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }
}
