import type { AppContext } from '../../context';
import { notAuthenticated } from '../../http/auth-rules';
import { ApiError } from '../../http/errors';
import { setPrivateContact, userContact } from '../idp';
import { sendPrivateContactVerification } from '../verification';

export interface PrivateContactResult {
  message: string;
  sent: boolean;
  already_verified: boolean;
  data: { private_contact_email: string; private_contact_verified: boolean };
}

const sameAddress = (a: string | null, b: string) => a !== null && a.toLowerCase() === b.toLowerCase();

function result(email: string, sent: boolean): PrivateContactResult {
  return {
    message: sent
      ? 'A verification link has been sent to your private contact email'
      : 'Your private contact email is already verified',
    sent,
    already_verified: !sent,
    data: { private_contact_email: email, private_contact_verified: !sent },
  };
}

/** Stores the address unverified and mails its link; re-setting the same verified address changes nothing. */
export async function setAndVerify(ctx: AppContext, userId: string, email: string): Promise<PrivateContactResult> {
  return ctx.db.transaction(async (trx) => {
    const user = await userContact(trx, userId);
    if (!user) throw notAuthenticated();
    const stored = user.private_contact_email;
    if (user.private_contact_verified_at && stored !== null && sameAddress(stored, email)) {
      return result(stored, false);
    }
    await setPrivateContact(trx, userId, email);
    await sendPrivateContactVerification(ctx, trx, user, email);
    return result(email, true);
  });
}

/** Sends a new link for the stored address unless it is already verified. */
export async function resend(ctx: AppContext, userId: string): Promise<PrivateContactResult> {
  return ctx.db.transaction(async (trx) => {
    const user = await userContact(trx, userId);
    if (!user) throw notAuthenticated();
    if (!user.private_contact_email) {
      throw new ApiError(400, 'Bad request', 'No private contact email is set', { code: 'PRIVATE_CONTACT_MISSING' });
    }
    if (user.private_contact_verified_at) return result(user.private_contact_email, false);
    await sendPrivateContactVerification(ctx, trx, user, user.private_contact_email);
    return result(user.private_contact_email, true);
  });
}
