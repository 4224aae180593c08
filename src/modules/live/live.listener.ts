import type pg from 'pg';
import { ListenSession } from '../../infra/listen-session';
import type { Logger } from '../../infra/logger';
import { READ_CACHE_CHANNEL } from '../../infra/invalidation';

/** Sent with the commit of each settled gift: `<campaign id>:<journal seq>` (migration 20261201100000). */
export const LIVE_GIFT_CHANNEL = 'live_gift';

export interface LiveSignals {
  /** A gift of the campaign was settled (its journal position). */
  gift(fundraiserId: string, seq: string): void;
  /** Something the campaign's progress or readability shows changed; `null`: maybe every campaign. */
  change(fundraiserId: string | null): void;
  /** LISTEN is (again) in effect: anything may have been missed while it was not. */
  up(): void;
}

/**
 * The live streams' one Postgres session per process (never one per viewer): LISTENs on the gift
 * journal's channel and on the read cache's change channel, which every table a campaign's
 * progress or visibility reads already notifies on commit. It is its own session rather than the
 * read cache's: that one exists only while READ_CACHE is on and goes down and up with the cache's
 * rules. Like it, it must be a direct session (DATABASE_DIRECT_URL behind a pooler).
 */
export function liveListener(connection: pg.ClientConfig, signals: LiveSignals, log: Logger): ListenSession {
  return new ListenSession(
    connection,
    [LIVE_GIFT_CHANNEL, READ_CACHE_CHANNEL],
    {
      notification: (channel, p) => {
        if (channel === LIVE_GIFT_CHANNEL) {
          const at = p.indexOf(':');
          if (at > 0) signals.gift(p.slice(0, at), p.slice(at + 1));
        } else if (channel === READ_CACHE_CHANNEL && !p.startsWith('barrier:')) {
          signals.change(p === '*' ? null : p.split(':')[0]!);
        }
      },
      up: () => signals.up(),
    },
    log,
    'live streams',
  );
}
