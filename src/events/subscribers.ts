import type { Subscriber } from './index';
import { payoutSubscribers } from '../modules/payouts';
import { notificationSubscribers } from '../modules/notifications';
import { donationSubscribers } from '../modules/donations';
import { referralSubscribers } from '../modules/referrals';
import { endorsementSubscribers } from '../modules/endorsements';
import { leaderboardSubscribers } from '../modules/leaderboard';
import { followSubscribers } from '../modules/follows';
import { feedSubscribers } from '../modules/feed';
import { achievementSubscribers } from '../modules/achievements';
import { communitySubscribers } from '../modules/communities';
import { shareImageSubscribers } from '../modules/share-images';
import { webhookEndpointSubscribers } from '../modules/webhook-endpoints';
import { commentSubscribers } from '../modules/comments';

/**
 * Every module's event subscribers, collected like route tables. A module adds its
 * `<module>.events.ts` list here (imported through the module's index.ts).
 */
export const subscribers: Subscriber[] = [...notificationSubscribers, ...donationSubscribers, ...payoutSubscribers, ...endorsementSubscribers, ...leaderboardSubscribers, ...referralSubscribers, ...followSubscribers, ...feedSubscribers, ...communitySubscribers, ...achievementSubscribers, ...shareImageSubscribers, ...commentSubscribers, ...webhookEndpointSubscribers];
