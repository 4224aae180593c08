import { defineRoutes, idParams, route } from '../../../http/define-routes';
import { cancelBody, changeBody, giftEnvelope, giftList, tokenQuery } from './recurring.schemas';
import * as service from './recurring.service';

const FROM_NEXT =
  'Changes take effect from the next payment: `amount_cents`, `tip_cents` (same bounds as POST /donations), `paused` (true: no payments until false again). At least one field. 409 `RECURRING_GIFT_CANCELED` once canceled.';
const CANCEL = 'Cancels at once (no further payments; gifts already paid stay). `reason` is optional. Canceling again answers the canceled gift.';

type Id = { id: string };
type Token = { token: string };
type Change = { amount_cents?: number; tip_cents?: number; paused?: boolean };
type Cancel = { reason?: string } | undefined;

/** A signed-in donor's monthly gifts. Another donor's (or an unknown id) answers 404. */
export const meRecurringRoutes = defineRoutes(
  '/me/recurring-gifts',
  [
    route({
      method: 'get',
      path: '/',
      summary: 'Your monthly gifts',
      description: 'Every monthly gift you started (its first payment settled), newest first, with its status and next payment.',
      auth: 'required',
      response: giftList,
      handler: async ({ ctx, actor }) => ({ data: await service.listForDonor(ctx, actor.userId) }),
    }),
    route<Id, Record<string, never>, Change, 'required'>({
      method: 'patch',
      path: '/:id',
      summary: 'Change a monthly gift',
      description: `${FROM_NEXT} 404 for another donor's gift.`,
      auth: 'required',
      params: idParams,
      body: changeBody,
      response: giftEnvelope,
      errors: [404, 409],
      handler: async ({ ctx, actor, params, body }) => ({ data: await service.changeGift(ctx, params.id, { userId: actor.userId }, body) }),
    }),
    route<Id, Record<string, never>, Cancel, 'required'>({
      method: 'delete',
      path: '/:id',
      summary: 'Cancel a monthly gift',
      description: `${CANCEL} 404 for another donor's gift.`,
      auth: 'required',
      params: idParams,
      body: cancelBody,
      response: giftEnvelope,
      errors: [404],
      handler: async ({ ctx, actor, params, body }) => ({ data: await service.cancelGift(ctx, params.id, { userId: actor.userId }, body?.reason ?? null) }),
    }),
  ],
  { tag: 'donations' },
);

const GUEST = 'Guests manage a monthly gift through the signed link in each of its mails (`?token=`); a token for another gift, or none that verifies, answers 404.';

/** The same operations for whoever holds a gift's signed link (guest donors). */
export const guestRecurringRoutes = defineRoutes(
  '/recurring-gifts',
  [
    route<Id, Token>({
      method: 'get',
      path: '/:id',
      summary: 'A monthly gift, by its signed link',
      description: GUEST,
      auth: 'none',
      params: idParams,
      query: tokenQuery,
      response: giftEnvelope,
      errors: [404],
      handler: async ({ ctx, params, query }) => ({ data: await service.readGift(ctx, params.id, { token: query.token }) }),
    }),
    route<Id, Token, Change>({
      method: 'patch',
      path: '/:id',
      summary: 'Change a monthly gift, by its signed link',
      description: `${FROM_NEXT} ${GUEST}`,
      auth: 'none',
      params: idParams,
      query: tokenQuery,
      body: changeBody,
      response: giftEnvelope,
      errors: [404, 409],
      handler: async ({ ctx, params, query, body }) => ({ data: await service.changeGift(ctx, params.id, { token: query.token }, body) }),
    }),
    route<Id, Token, Cancel>({
      method: 'delete',
      path: '/:id',
      summary: 'Cancel a monthly gift, by its signed link',
      description: `${CANCEL} ${GUEST}`,
      auth: 'none',
      params: idParams,
      query: tokenQuery,
      body: cancelBody,
      response: giftEnvelope,
      errors: [404],
      handler: async ({ ctx, params, query, body }) => ({ data: await service.cancelGift(ctx, params.id, { token: query.token }, body?.reason ?? null) }),
    }),
  ],
  { tag: 'donations' },
);
