import { BEAT_CHECK_MS, HEARTBEAT_MS, LARGE_AUDIENCE, LARGE_TICK_MS, needsBeat, TICK_MS, tickMs } from '../../src/modules/live/live.pacing';

/** How often a campaign's viewers are written to, and which quiet streams get a comment line. */
describe('live stream pacing', () => {
  test('when a campaign has up to LARGE_AUDIENCE viewers in a process, then a write at most every 250 ms; beyond, every 500 ms (still well within a second)', () => {
    expect(tickMs(1)).toBe(TICK_MS);
    expect(TICK_MS).toBe(250);
    expect(tickMs(LARGE_AUDIENCE)).toBe(TICK_MS);
    expect(tickMs(LARGE_AUDIENCE + 1)).toBe(LARGE_TICK_MS);
    expect(LARGE_TICK_MS).toBeLessThanOrEqual(500);
  });

  test('when the streams are looked over, then only those written to longest ago get a comment line, and none stays quiet past HEARTBEAT_MS', () => {
    const now = 1_000_000;
    expect(needsBeat({ lastWrite: now - 100 }, now)).toBe(false);
    expect(needsBeat({ lastWrite: 0 }, now)).toBe(true);
    // A stream that just missed one check gets a line at the next one, BEAT_CHECK_MS later: at most HEARTBEAT_MS of quiet.
    const justMissed = now - (HEARTBEAT_MS - BEAT_CHECK_MS) + 1;
    expect(needsBeat({ lastWrite: justMissed }, now)).toBe(false);
    expect(needsBeat({ lastWrite: justMissed }, now + BEAT_CHECK_MS)).toBe(true);
    expect(now + BEAT_CHECK_MS - justMissed).toBeLessThanOrEqual(HEARTBEAT_MS);
  });
});
