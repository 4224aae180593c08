import type { Knex } from 'knex';
import type { AppContext } from '../../context';
import { processorOrigin, type PaymentEvent } from '../../integrations/payments';
import { accountExists } from '../idp';
import * as repo from './tips.repo';

/**
 * A tip started after the point a database was restored to has no row, but its Checkout Session,
 * subscription and invoices describe it (tips.service.ts). Its checkout or invoice event rebuilds
 * the row, pending, in the transaction that then settles it as usual; the tip id is the primary
 * key, so a duplicate or reordered event finds the row instead. Another deployment's tips (a
 * test-mode account shared by several environments) are never rebuilt here.
 */
export async function rebuildTip(ctx: AppContext, trx: Knex.Transaction, e: PaymentEvent, cs: string | null): Promise<repo.TipRow | undefined> {
  const t = e.ref?.kind === 'tip' ? e.ref.tip : undefined;
  if (!t || t.origin !== processorOrigin(ctx.config.PUBLIC_URL)) return undefined;
  // An account made after the restore point is not here either.
  const user = (await accountExists(trx, t.user_id)) ? t.user_id : null;
  await trx('tips')
    .insert({
      id: t.tip_id,
      user_id: user,
      email: t.email,
      anonymous: t.anonymous,
      amount_cents: t.amount_cents,
      currency: 'usd',
      cadence: t.cadence,
      status: 'pending',
      locale: t.locale,
      processor_checkout_session_id: cs ?? t.checkout_session_id,
      ...(t.created ? { created_at: t.created } : {}),
    })
    .onConflict()
    .ignore();
  return repo.lockTip(trx, t.tip_id);
}
