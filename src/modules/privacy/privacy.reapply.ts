import type { AppContext } from '../../context';
import { recordAudit } from '../audit';
import type { PersonalDataPart } from '../define-module';
import { eraseNow } from './privacy.erasure';
import { guestAddressesOf, readErasureLog } from './privacy.erasure-log';
import { scrubExportFiles } from './privacy.export-files';
import { eraseGuestAddress, GUEST_PLACEHOLDERS } from './privacy.guests';
import { guestNeedles } from './privacy.needles';
import { accountForPrivacy } from './privacy.reads';
import { usable } from './privacy.replace';
import * as repo from './privacy.repo';

type Parts = ReadonlyArray<{ module: string; part: PersonalDataPart }>;

export interface ReapplyReport {
  /** Entries in the log. */
  logged: number;
  /** Accounts and guest addresses erased again (the database had them back). */
  accounts: number;
  guests: number;
  /** Entries with nothing to do: erased already, or the account is not in this database. */
  unchanged: number;
  /** Log entries that could not be read (their keys). */
  unreadable: string[];
}

/**
 * Carries out again every logged erasure the database no longer shows (after a restore to a point
 * before it, and after recover-since has rebuilt the gifts started since): accounts by id, guests
 * by the rows their erasure pseudonymised. A second run changes nothing.
 */
export async function reapplyErasures(ctx: AppContext, parts: Parts): Promise<ReapplyReport> {
  const { records, unreadable } = await readErasureLog(ctx);
  const report: ReapplyReport = { logged: records.length, accounts: 0, guests: 0, unchanged: 0, unreadable };
  for (const rec of records) {
    if (rec.kind === 'account') {
      const back = !(await repo.erasureDone(ctx.db, rec.user_id)) && !!(await accountForPrivacy(ctx.db, rec.user_id));
      if (back && (await eraseNow(ctx, parts, rec.user_id, { reapply: true })) === 'done') report.accounts += 1;
      else report.unchanged += 1;
      continue;
    }
    const addresses = await guestAddressesOf(ctx.db, parts, rec.rows);
    if (!addresses.length) report.unchanged += 1;
    for (const email of addresses) {
      // As a confirmed request does: others' export files first (storage is a network call), then one transaction.
      await scrubExportFiles(ctx, usable(await guestNeedles(ctx.db, parts, email)), GUEST_PLACEHOLDERS, null);
      await ctx.db.transaction(async (trx) => {
        const { rows, copies } = await eraseGuestAddress(trx, parts, email, { reapply: true });
        await recordAudit(trx, { actor_user_id: null, action: 'privacy.guest_erasure_reapplied', target_type: 'privacy_erasure_log', target_id: rec.id, details: { rows, copies } });
      });
      report.guests += 1;
    }
  }
  return report;
}
