import type { Knex } from 'knex';
import type { AppContext } from '../../context';
import * as repo from './media.repo';

export interface CampaignUpload {
  id: string;
  url: string;
  storage_key: string;
}

/**
 * The campaign's uploads named by id or by URL, for a take-down (DMCA): rows of other
 * campaigns are never returned, so a staff member cannot remove another campaign's files by
 * naming them here.
 */
export async function campaignUploads(ctx: AppContext, trx: Knex.Transaction, fundraiserId: string, ids: string[], urls: string[]): Promise<CampaignUpload[]> {
  const keys = urls.map((u) => ctx.storage.keyOf(u)).filter((k): k is string => k !== null);
  const rows = [...(await repo.uploadsOfFundraiser(trx, fundraiserId, ids)), ...(await repo.uploadsByKeys(trx, fundraiserId, keys))];
  const seen = new Set<string>();
  return rows.filter((r) => !seen.has(r.id) && seen.add(r.id)).map((r) => ({ id: r.id, url: ctx.storage.url(r.storage_key), storage_key: r.storage_key }));
}

/** Forgets the upload rows (in the take-down's transaction); the files are removed after commit. */
export function forgetUploads(trx: Knex.Transaction, ids: string[]): Promise<void> {
  return repo.deleteUploads(trx, ids);
}
