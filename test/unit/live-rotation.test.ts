import { chunkFrame, type Batch, type Viewer } from '../../src/modules/live/live.viewer';
import { Rotation } from '../../src/modules/live/live.rotation';
import { LARGE_TICK_MS, SLOTS, TICK_MS } from '../../src/modules/live/live.pacing';

/** A stand-in for a stream: what the rotation writes to it, and when. */
function viewer() {
  const got: { seqs: bigint[]; at: number }[] = [];
  const v = {
    slot: -1,
    delivered: 0,
    ended: false,
    last: '',
    got,
    send(b: Batch) {
      got.push({ seqs: b.parts.map((p) => p.seq!), at: Date.now() });
    },
    end(last: Buffer) {
      v.ended = true;
      v.last = last.toString();
    },
  };
  return v;
}
type Fake = ReturnType<typeof viewer>;

function batch(...seqs: number[]): Batch {
  const parts = seqs.map((s) => ({ seq: BigInt(s), text: `id: ${s}\n\n` }));
  const whole = Buffer.from(parts.map((p) => p.text).join(''));
  return { parts, whole, frame: chunkFrame(whole), firstSeq: parts[0]!.seq };
}

async function until(done: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!done()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

const seqsOf = (v: Fake) => v.got.flatMap((g) => g.seqs.map(Number));

describe('live stream rotation (how a read reaches every viewer)', () => {
  test('when a campaign has a big audience, then every viewer gets every gift once and in order, a slice of them per turn spread over the tick, none written twice in a tick', async () => {
    const turns: number[] = [];
    let written = 0;
    const rotation = new Rotation(() => {
      turns.push(written);
      written = 0;
    });
    const viewers = Array.from({ length: 5_000 }, viewer);
    for (const v of viewers) {
      const send = v.send.bind(v);
      v.send = (b) => {
        written += 1;
        send(b);
      };
      rotation.add(v as unknown as Viewer);
    }
    rotation.push(batch(1, 2), new Map());
    await new Promise((r) => setTimeout(r, 120));
    rotation.push(batch(3), new Map());
    rotation.push(batch(4), new Map());
    await until(() => viewers.every((v) => seqsOf(v).length === 4));
    for (const v of viewers) expect(seqsOf(v)).toEqual([1, 2, 3, 4]);
    // 5,000 viewers over 50 slots, one slot a turn: 100 writes at a time, never the whole audience.
    expect(Math.max(...turns)).toBeLessThanOrEqual(5_000 / SLOTS);
    const firsts = viewers.map((v) => v.got[0]!.at);
    expect(Math.max(...firsts) - Math.min(...firsts)).toBeGreaterThanOrEqual(LARGE_TICK_MS / 2);
    // A viewer is written at most once per tick (timers fire late, never early; a millisecond of rounding aside).
    for (const v of viewers) for (let i = 1; i < v.got.length; i += 1) expect(v.got[i]!.at - v.got[i - 1]!.at).toBeGreaterThanOrEqual(LARGE_TICK_MS - 2);
    await rotation.stop();
  });

  test('when a campaign has a few viewers, then one turn writes all of them at once, at most once per tick', async () => {
    const rotation = new Rotation(() => undefined);
    const viewers = Array.from({ length: 3 }, viewer);
    for (const v of viewers) rotation.add(v as unknown as Viewer);
    rotation.push(batch(1), new Map());
    await until(() => viewers.every((v) => v.got.length === 1));
    expect(new Set(viewers.map((v) => v.got[0]!.at)).size).toBe(1);
    rotation.push(batch(2), new Map());
    await until(() => viewers.every((v) => v.got.length === 2));
    expect(viewers[0]!.got[1]!.at - viewers[0]!.got[0]!.at).toBeGreaterThanOrEqual(TICK_MS - 2);
    await rotation.stop();
  });

  test('when a read ends a stream, then its viewer gets the batch read before the ending, then the ending; a viewer that joins later gets only what comes after it', async () => {
    const rotation = new Rotation(() => undefined);
    const [a, b] = [viewer(), viewer()];
    rotation.add(a as unknown as Viewer);
    rotation.add(b as unknown as Viewer);
    rotation.push(batch(1), new Map([[a as unknown as Viewer, Buffer.from('closed')]]));
    await until(() => a.ended && b.got.length === 1);
    expect(seqsOf(a)).toEqual([1]);
    expect(a.last).toBe('closed');
    const late = viewer();
    rotation.add(late as unknown as Viewer);
    rotation.push(batch(2), new Map());
    await until(() => late.got.length === 1 && b.got.length === 2);
    expect(seqsOf(late)).toEqual([2]);
    expect(seqsOf(b)).toEqual([1, 2]);
    await rotation.stop();
  });

  test('when the rotation stops, then no turn follows', async () => {
    const rotation = new Rotation(() => undefined);
    const v = viewer();
    rotation.add(v as unknown as Viewer);
    await rotation.stop();
    rotation.push(batch(1), new Map());
    await new Promise((r) => setTimeout(r, TICK_MS + 50));
    expect(v.got).toEqual([]);
  });
});
