import { extname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Node } from './render';
import type { RenderReply } from './render-worker';

/** A render that has not answered by then is abandoned and its thread replaced (a stuck layout must not pin a slot). */
const RENDER_TIMEOUT_MS = 30_000;
/**
 * A thread is retired after this many renders (once idle) and a fresh one takes its place: what
 * satori and resvg keep between renders (WebAssembly memory, native buffers) never shrinks inside
 * a thread, and only ending the thread gives it back, so resident memory stays bounded.
 */
export const RENDERS_PER_THREAD = 10;
/**
 * A render thread's V8 heap: satori's layout objects are short-lived, and without a cap V8 lets
 * the heap grow far past what a render needs before collecting. A render that truly needs more
 * fails with ERR_WORKER_OUT_OF_MEMORY and the thread is replaced, like any thread that dies.
 */
const THREAD_LIMITS = { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 8 };
/** An idle thread ends after this long, so a burst of renders does not keep its memory resident afterwards. */
export const IDLE_THREAD_MS = 15_000;

// The worker's source sits beside this file: render-worker.ts under tsx and jest, .js once compiled.
// An eval'd CommonJS boot loads it, registering tsx first for TypeScript, so no separate .js entry
// is needed and no execArgv has to be right for the runtime at hand.
const WORKER_FILE = join(__dirname, `render-worker${extname(__filename)}`);
const BOOT = `const { workerData } = require('node:worker_threads');
if (workerData.tsx) require(workerData.tsx).register();
require(workerData.file);`;

interface Pending {
  resolve: (png: Buffer) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
  slot: Slot;
}

interface Slot {
  worker: Worker;
  busy: number;
  /** Renders handed to this thread so far. */
  used: number;
  idleTimer?: NodeJS.Timeout;
}

interface Waiting {
  node: Node;
  width: number;
  height: number;
  resolve: (png: Buffer) => void;
  reject: (err: Error) => void;
}

/**
 * A small pool of worker threads that turn satori node trees into PNGs, so share-image renders
 * never run on the event loop that answers requests. Threads start on first use and do not keep
 * the process alive while idle.
 */
export class RenderPool {
  private readonly slots: Slot[] = [];
  private readonly pending = new Map<number, Pending>();
  /** Renders no thread can take yet: every live thread is worn and still finishing its own. */
  private readonly waiting: Waiting[] = [];
  private nextId = 1;
  /** Renders answered, threads retired, the most threads alive at once, and the thread ids that answered (tests check they are not the main thread). */
  readonly stats = { rendered: 0, retired: 0, peakThreads: 0, threadIds: new Set<number>() };

  constructor(
    readonly size: number,
    private readonly idleMs = IDLE_THREAD_MS,
  ) {}

  render(node: Node, width: number, height: number): Promise<Buffer> {
    return new Promise<Buffer>((resolve, reject) => {
      this.waiting.push({ node, width, height, resolve, reject });
      this.drain();
    });
  }

  /** Stops every thread; the next render starts new ones. */
  async close(): Promise<void> {
    const slots = this.slots.splice(0);
    const closed = new Error('render pool closed');
    for (const w of this.waiting.splice(0)) w.reject(closed);
    for (const s of slots) {
      clearTimeout(s.idleTimer);
      this.rejectAll(s, closed);
    }
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }

  /** Hands waiting renders to threads while one can take them. */
  private drain(): void {
    while (this.waiting.length > 0) {
      const slot = this.pick();
      if (!slot) return;
      const { node, width, height, resolve, reject } = this.waiting.shift()!;
      const id = this.nextId++;
      const timer = setTimeout(() => this.fail(slot, new Error('share image render timed out')), RENDER_TIMEOUT_MS);
      this.pending.set(id, { resolve, reject, timer, slot });
      clearTimeout(slot.idleTimer);
      slot.busy += 1;
      slot.worker.ref();
      slot.worker.postMessage({ id, node, width, height });
    }
  }

  /**
   * A thread for the next render, or null to wait. Worn threads take no new work and still count
   * against the pool's size until they end, so no more than `size` threads (and their memory)
   * are ever alive at once.
   */
  private pick(): Slot | null {
    for (const s of this.slots.filter((x) => x.used >= RENDERS_PER_THREAD && x.busy === 0)) this.retire(s);
    const fresh = this.slots.filter((s) => s.used < RENDERS_PER_THREAD);
    const slot = fresh.find((s) => s.busy === 0) ?? (this.slots.length < this.size ? this.spawn() : fresh.reduce<Slot | null>((a, b) => (a && a.busy <= b.busy ? a : b), null));
    if (slot) slot.used += 1;
    return slot;
  }

  private retire(slot: Slot): void {
    const i = this.slots.indexOf(slot);
    if (i !== -1) this.slots.splice(i, 1);
    clearTimeout(slot.idleTimer);
    this.stats.retired += 1;
    void slot.worker.terminate();
  }

  private spawn(): Slot {
    const tsx = WORKER_FILE.endsWith('.ts') ? require.resolve('tsx/cjs/api') : null;
    const worker = new Worker(BOOT, { eval: true, workerData: { file: WORKER_FILE, tsx }, resourceLimits: THREAD_LIMITS });
    worker.unref();
    const slot: Slot = { worker, busy: 0, used: 0 };
    worker.on('message', (m: RenderReply) => this.settle(slot, m));
    worker.on('error', (err) => this.fail(slot, err));
    worker.on('exit', (code) => this.fail(slot, new Error(`render thread exited (${code})`)));
    this.slots.push(slot);
    this.stats.peakThreads = Math.max(this.stats.peakThreads, this.slots.length);
    return slot;
  }

  private settle(slot: Slot, m: RenderReply): void {
    const p = this.pending.get(m.id);
    if (!p) return;
    this.pending.delete(m.id);
    clearTimeout(p.timer);
    slot.busy -= 1;
    if (slot.busy === 0) {
      slot.worker.unref();
      if (slot.used >= RENDERS_PER_THREAD) this.retire(slot);
      else {
        slot.idleTimer = setTimeout(() => this.slots.includes(slot) && slot.busy === 0 && this.retire(slot), this.idleMs);
        slot.idleTimer.unref();
      }
    }
    if ('error' in m) p.reject(new Error(m.error));
    else {
      this.stats.rendered += 1;
      this.stats.threadIds.add(m.threadId);
      p.resolve(Buffer.from(m.png.buffer, m.png.byteOffset, m.png.byteLength));
    }
    this.drain();
  }

  /** A thread that errored, exited or hung: its renders fail and it leaves the pool. */
  private fail(slot: Slot, err: Error): void {
    const i = this.slots.indexOf(slot);
    if (i === -1) return;
    this.slots.splice(i, 1);
    clearTimeout(slot.idleTimer);
    this.rejectAll(slot, err);
    void slot.worker.terminate();
    this.drain();
  }

  private rejectAll(slot: Slot, err: Error): void {
    for (const [id, p] of this.pending) {
      if (p.slot !== slot) continue;
      this.pending.delete(id);
      clearTimeout(p.timer);
      p.reject(err);
    }
  }
}

let shared: RenderPool | null = null;

/** The process's pool; its size is fixed by the first caller (RENDER_THREADS). */
export function renderPool(size: number): RenderPool {
  shared ??= new RenderPool(size);
  return shared;
}
