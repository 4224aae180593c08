import { parseConfig } from '../../src/config';
import { parseLsn, PrimaryHistory } from '../../src/db/replica-probe';

describe('replica lag from WAL positions', () => {
  test('when LSNs are parsed, then they order like WAL positions across the high word', () => {
    expect(parseLsn('0/3001178')).toBe(0x3001178n);
    expect(parseLsn('1/0')! > parseLsn('0/FFFFFFFF')!).toBe(true);
    expect(parseLsn(null)).toBeNull();
    expect(parseLsn('nonsense')).toBeNull();
  });

  test('when the primary is idle and the standby is at its position, then the lag is 0 however long ago the last commit was', () => {
    const h = new PrimaryHistory();
    h.note(100n, 0);
    h.note(100n, 50_000);
    expect(h.lagMs(100n, 60_000)).toBe(0);
  });

  test('when the standby is behind, then its lag is the time since the primary was first seen past its position', () => {
    const h = new PrimaryHistory();
    h.note(100n, 1_000);
    h.note(200n, 2_000);
    h.note(300n, 3_000);
    expect(h.lagMs(150n, 5_000)).toBe(3_000);
    expect(h.lagMs(250n, 5_000)).toBe(2_000);
    expect(h.lagMs(300n, 5_000)).toBe(0);
    expect(new PrimaryHistory().lagMs(1n)).toBe(Infinity);
  });

  test('when DATABASE_REPLICA_URLS holds something else than postgres URLs, then the configuration names it', () => {
    expect(parseConfig({ DATABASE_REPLICA_URLS: 'postgres://a/x, postgresql://b:5433/x' }).DATABASE_REPLICA_URLS).toEqual(['postgres://a/x', 'postgresql://b:5433/x']);
    expect(() => parseConfig({ DATABASE_REPLICA_URLS: 'postgres://a/x,mysql://b/x' })).toThrow(/DATABASE_REPLICA_URLS/);
    expect(() => parseConfig({ REPLICA_MAX_LAG_MS: '-1' })).toThrow(/REPLICA_MAX_LAG_MS/);
    expect(parseConfig({}).REPLICA_MAX_LAG_MS).toBe(1000);
  });
});
