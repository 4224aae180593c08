import type { Subscriber } from '../events';
import { payoutSubscribers } from './payouts';
import { notificationSubscribers } from './notifications';
import { donationSubscribers } from './donations';
import { referralSubscribers } from './referrals';
import { endorsementSubscribers } from './endorsements';
import { leaderboardSubscribers } from './leaderboard';
import { followSubscribers } from './follows';
import { feedSubscribers } from './feed';
import { achievementSubscribers } from './achievements';
import { communitySubscribers } from './communities';
import { shareImageSubscribers } from './share-images';
import { webhookEndpointSubscribers } from './webhook-endpoints';
import { commentSubscribers } from './comments';

/**
 * Every module's event subscribers, collected like route tables. A module adds its
 * `<module>.events.ts` list here (imported through the module's index.ts).
 */
export const subscribers: Subscriber[] = [...notificationSubscribers, ...donationSubscribers, ...payoutSubscribers, ...endorsementSubscribers, ...leaderboardSubscribers, ...referralSubscribers, ...followSubscribers, ...feedSubscribers, ...communitySubscribers, ...achievementSubscribers, ...shareImageSubscribers, ...commentSubscribers, ...webhookEndpointSubscribers];
