import type { Knex } from 'knex';

/** Flags the interface names; listed by GET /features even before anyone stores a setting. */
export const KNOWN_FLAGS = [
  'features.user_registration',
  'features.fundraiser_creation',
  'features.fundraiser_video',
  'features.project_updates',
  'features.comments',
  'features.dmca_workflow',
] as const;

export interface FlagState {
  key: string;
  enabled: boolean;
  updated_at: string | null;
}

/**
 * Feature flags from the `feature_flags` table. A flag with no stored setting is on. Reads are
 * cached for a few seconds so a change (CLI or another instance) takes effect without restart.
 */
export class FlagService {
  private cache: { at: number; rows: Map<string, FlagState> } | null = null;

  constructor(private readonly db: Knex, private readonly ttlMs = 3000) {}

  private async load(): Promise<Map<string, FlagState>> {
    if (this.cache && Date.now() - this.cache.at < this.ttlMs) return this.cache.rows;
    const rows = await this.db('feature_flags').select('key', 'enabled', 'updated_at');
    const map = new Map<string, FlagState>(
      rows.map((r) => [r.key, { key: r.key, enabled: r.enabled, updated_at: new Date(r.updated_at).toISOString() }]),
    );
    this.cache = { at: Date.now(), rows: map };
    return map;
  }

  async isEnabled(key: string): Promise<boolean> {
    return (await this.load()).get(key)?.enabled ?? true;
  }

  /** Every `features.*` flag: the known ones plus any stored. */
  async list(): Promise<FlagState[]> {
    const stored = await this.load();
    const keys = new Set<string>([...KNOWN_FLAGS, ...[...stored.keys()].filter((k) => k.startsWith('features.'))]);
    return [...keys].sort().map((key) => stored.get(key) ?? { key, enabled: true, updated_at: null });
  }

  async set(key: string, enabled: boolean): Promise<void> {
    await setFlag(this.db, key, enabled);
    this.cache = null;
  }

  invalidate(): void {
    this.cache = null;
  }
}

export async function setFlag(db: Knex, key: string, enabled: boolean): Promise<void> {
  await db('feature_flags')
    .insert({ key, enabled, updated_at: db.fn.now() })
    .onConflict('key')
    .merge({ enabled, updated_at: db.fn.now() });
}
