/** Paid communities: joins with or without a leader's approval, the community fund and its withdrawals. */
export { communityWebhooks } from './communities.webhooks';
export { communityLedgerCheck } from './communities.check';
export { communitySubscribers } from './communities.events';
export { pruneExpiredWithdrawalCodes } from './communities.repo';
// Registers how a confirmed fund withdrawal is recorded (payouts runs the confirm, in any process).
import './communities.fund';
