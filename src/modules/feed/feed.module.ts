import { defineModule } from '../define-module';
import routes from './feed.routes';
import { feedSubscribers } from './feed.events';
import { feedPersonalData } from './feed.personal-data';

declare module '../notifications/notification-types' {
  interface NotificationTypeRegistry {
    campaign_update: true;
  }
}

export default defineModule({
  name: 'feed',
  personalData: feedPersonalData,
  routes: [routes],
  subscribers: feedSubscribers,
  notificationTypes: {
    campaign_update: {
      order: 40,
      labels: { en: 'updates from campaigns you follow or support', ru: 'новостях кампаний, на которые вы подписаны или которые поддержали', uk: 'новини кампаній, на які ви підписані або які підтримали', es: 'novedades de las campañas que sigues o apoyas' },
    },
  },
});
