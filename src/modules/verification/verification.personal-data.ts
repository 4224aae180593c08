import type { PersonalDataPart } from '../define-module';

/** Verification links: hold an address, worthless once used; deleted on erasure. */
export const verificationPersonalData: PersonalDataPart = {
  columns: ['verification_tokens.user_id', 'verification_tokens.email'],
  async erase(trx, a) {
    await trx('verification_tokens').where({ user_id: a.userId }).delete();
  },
};
