import { queryRows, type Db } from './knex';

/** An LSN ('16/B374D848') as a number that orders like the WAL position. */
export function parseLsn(text: string | null | undefined): bigint | null {
  if (!text) return null;
  const m = /^([0-9A-F]+)\/([0-9A-F]+)$/i.exec(text);
  return m ? (BigInt(`0x${m[1]}`) << 32n) + BigInt(`0x${m[2]}`) : null;
}

/**
 * The primary's WAL position now; read after a commit, it is at or past that commit. The insert
 * position, not the write position (pg_current_wal_lsn): a commit made with synchronous_commit
 * off returns before its WAL is written, and a standby that replayed up to the write position
 * may not have that commit yet (test/api/primary-lsn.test.ts).
 */
export async function primaryLsn(db: Db): Promise<bigint> {
  const [row] = await queryRows<{ lsn: string }>(db, 'select pg_current_wal_insert_lsn()::text as lsn', []);
  const lsn = parseLsn(row?.lsn);
  if (lsn === null) throw new Error('pg_current_wal_insert_lsn() answered nothing');
  return lsn;
}

/**
 * The primary's positions as first seen by the probe, oldest first (one entry per change, so an
 * idle primary keeps one). A replica's lag is how long the primary has been past its replay
 * position: replay timestamps lie on an idle primary (no transaction to replay makes "now minus
 * the last replayed commit" grow forever), positions do not. A replica at the primary's latest
 * position has lag 0. The first sighting can be one probe interval after the change, so lag
 * reads up to one interval low.
 */
export class PrimaryHistory {
  private readonly seen: { lsn: bigint; at: number }[] = [];

  constructor(private readonly keepMs = 60_000) {}

  note(lsn: bigint, at = Date.now()): void {
    const last = this.seen[this.seen.length - 1];
    if (!last || lsn > last.lsn) this.seen.push({ lsn, at });
    while (this.seen.length > 1 && this.seen[0]!.at < at - this.keepMs) this.seen.shift();
  }

  get latest(): bigint | null {
    return this.seen.length ? this.seen[this.seen.length - 1]!.lsn : null;
  }

  /** Milliseconds a replica replayed up to `replay` is behind (Infinity: no primary position known yet). */
  lagMs(replay: bigint, now = Date.now()): number {
    if (!this.seen.length) return Infinity;
    if (replay >= this.seen[this.seen.length - 1]!.lsn) return 0;
    const ahead = this.seen.find((s) => s.lsn > replay)!;
    return now - ahead.at;
  }
}

export interface ReplicaState {
  /** Replay position at the last good probe; null while down or never probed. */
  replay: bigint | null;
  /** When the last probe succeeded (0: never). */
  okAt: number;
}

/** One probe of a standby: its replay position, or null when it is not a standby in recovery (promoted: not ours to read). */
export async function probeReplica(db: Db): Promise<bigint | null> {
  const [row] = await queryRows<{ replay: string | null; recovering: boolean }>(
    db,
    'select pg_last_wal_replay_lsn()::text as replay, pg_is_in_recovery() as recovering',
    [],
  );
  return row?.recovering ? parseLsn(row.replay) : null;
}
