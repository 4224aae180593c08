import type { PersonalDataPart } from '../define-module';
import { holderEarnings } from './earnings.service';

/** Money raised and not yet paid out keeps the account from being erased (its payouts need it). */
export const payoutsPersonalData: PersonalDataPart = {
  columns: [],
  async blockers(ctx, userId) {
    const e = await holderEarnings(ctx, { type: 'user', id: userId });
    if (e.available_cents + e.pending_cents <= 0) return [];
    return [{ code: 'MONEY_NOT_PAID_OUT', message: 'Your campaigns hold money not yet paid out: withdraw it (or wait for the payout) first.' }];
  },
};
