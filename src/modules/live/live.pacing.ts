import type { Viewer } from './live.viewer';

/** How often a campaign's viewers are written to, in what slices, and which quiet streams get a comment line. */

/** At most one write per campaign per this many ms (every event since the last one goes in it). */
export const TICK_MS = 250;
/**
 * A campaign watched by more viewers than this in one process is written every LARGE_TICK_MS:
 * each tick costs one socket write per viewer whatever it holds, so halving the ticks halves the
 * cost of a big audience while a gift still reaches everyone well within a second.
 */
export const LARGE_AUDIENCE = 2_000;
export const LARGE_TICK_MS = 500;
/** A stream gets a comment line when nothing else was written to it for this long (proxies close quiet streams). */
export const HEARTBEAT_MS = 15_000;
/** How often the streams are looked over for quiet ones: no stream stays quiet longer than HEARTBEAT_MS. */
export const BEAT_CHECK_MS = HEARTBEAT_MS / 3;
/** Viewers written to between two turns of the event loop: short enough that a request never waits long behind a slice. */
const WRITE_SLICE = 100;

/** The streams due a comment line at `now`: those nothing was written to for HEARTBEAT_MS less one check's period. */
export const needsBeat = (v: Pick<Viewer, 'lastWrite'>, now: number) => v.lastWrite <= now - (HEARTBEAT_MS - BEAT_CHECK_MS);

/** How far apart a campaign's writes are, by the size of its audience in this process. */
export const tickMs = (viewers: number) => (viewers > LARGE_AUDIENCE ? LARGE_TICK_MS : TICK_MS);

/** Runs `each` over `items` in slices, giving the event loop a turn (pending I/O first) between slices. */
export async function sliced<T>(items: Iterable<T>, each: (item: T) => void): Promise<void> {
  let n = 0;
  for (const item of items) {
    if (n > 0 && n % WRITE_SLICE === 0) await new Promise((r) => setImmediate(r));
    each(item);
    n += 1;
  }
}
