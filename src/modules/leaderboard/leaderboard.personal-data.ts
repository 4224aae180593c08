import type { PersonalDataPart } from '../define-module';
import { rememberDonorKey } from './donor-keys';

/**
 * Donor page keys. An erased account's gifts become anonymous at erasure, after their
 * donation.paid events were handled, so the anonymous alias key its leaderboard row links to is
 * registered here (else its donor page answers 404). A guest's named-gift key holds the address
 * itself: it goes with a guest erasure.
 */
export const leaderboardPersonalData: PersonalDataPart = {
  columns: [],
  async erase(trx, a) {
    await rememberDonorKey(trx, 'anon', `u:${a.userId}`);
  },
  async eraseGuest(trx, email) {
    await trx('donor_keys').where({ kind: 'guest', identity: email.toLowerCase() }).delete();
    return 0; // keys, not gifts: the gifts are counted by the donations part
  },
};
