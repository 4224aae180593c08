import { defineModule } from '../define-module';
import routes from './communities.routes';
import { communityLedgerCheck } from './communities.check';
import { communitySubscribers } from './communities.events';
// Registers how a confirmed fund withdrawal is recorded (payouts runs the confirm, in any process).
import './communities.fund';
import { communityWebhooks } from './communities.webhooks';
import { communitiesPersonalData } from './communities.personal-data';

declare module '../notifications/notification-types' {
  interface NotificationTypeRegistry {
    community_join_requested: true;
    community_join_approved: true;
    community_join_declined: true;
  }
}

export default defineModule({
  name: 'communities',
  publishes: ['community.join_requested', 'community.join_decided'],
  personalData: communitiesPersonalData,
  routes: [routes],
  subscribers: communitySubscribers,
  webhookHandlers: { ref: 'community_join', handlers: communityWebhooks },
  checks: { 'community funds': communityLedgerCheck },
  // Join requests and decisions reach the inbox; their mail has no toggle of its own (it follows "all").
  notificationTypes: {
    community_join_requested: { emailToggle: false },
    community_join_approved: { emailToggle: false },
    community_join_declined: { emailToggle: false },
  },
});
