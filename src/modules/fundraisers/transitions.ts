import { ApiError } from '../../http/errors';
import type { FundraiserStatus } from './fundraisers.schemas';

export type OwnerTarget = 'draft' | 'pending' | 'active' | 'paused' | 'ended';

/** What an owner's status change asks for: nothing, a direct move, or a pass through the gate. */
export type TransitionPlan =
  | { kind: 'none' }
  | { kind: 'set'; status: FundraiserStatus }
  | { kind: 'gate'; requested: 'active' | 'pending' };

export function invalidTransition(from: FundraiserStatus, to: string): ApiError {
  return new ApiError(409, 'Conflict', `A ${from} campaign cannot be moved to ${to}`, {
    code: 'INVALID_STATUS_TRANSITION',
    from,
    to,
  });
}

export function fundsCollected(): ApiError {
  return new ApiError(409, 'Conflict', 'A campaign that has collected money cannot go back to draft', {
    code: 'FUNDS_COLLECTED',
  });
}

/**
 * Owner transitions (staff decide pending and rejected):
 *   draft   -> active (gate: pass active, flag pending, block 403) | pending (gate: block 403, else pending)
 *   active  -> paused | ended | draft (no money collected)
 *   paused  -> active (resume, no gate) | ended | draft (no money collected)
 *   ended   -> draft (no money collected)
 *   pending, rejected -> nothing (409)
 * Asking for the current status changes nothing.
 */
export function planTransition(from: FundraiserStatus, to: OwnerTarget | undefined, hasCollectedMoney: boolean): TransitionPlan {
  if (to === undefined || to === from) return { kind: 'none' };
  if (from === 'pending' || from === 'rejected') throw invalidTransition(from, to);
  switch (to) {
    case 'draft':
      if (hasCollectedMoney) throw fundsCollected();
      return { kind: 'set', status: 'draft' };
    case 'active':
      if (from === 'draft') return { kind: 'gate', requested: 'active' };
      if (from === 'paused') return { kind: 'set', status: 'active' };
      throw invalidTransition(from, to);
    case 'pending':
      if (from === 'draft') return { kind: 'gate', requested: 'pending' };
      throw invalidTransition(from, to);
    case 'paused':
      if (from === 'active') return { kind: 'set', status: 'paused' };
      throw invalidTransition(from, to);
    case 'ended':
      if (from === 'active' || from === 'paused') return { kind: 'set', status: 'ended' };
      throw invalidTransition(from, to);
  }
}
