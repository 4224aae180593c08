import { defineModule } from '../define-module';
import routes from './admin-review.routes';

declare module '../notifications/notification-types' {
  interface NotificationTypeRegistry {
    campaign_approved: true;
    campaign_rejected: true;
  }
}

/** Staff review decides campaigns, so the spec's campaign_approved / campaign_rejected toggles are its types (review decisions notify no one yet). */
export default defineModule({
  name: 'admin-review',
  publishes: ['fundraiser.published', 'fundraiser.updated'],
  routes: [routes],
  notificationTypes: {
    campaign_approved: {
      order: 50,
      labels: { en: 'approved campaigns', ru: 'одобренных кампаниях', uk: 'схвалені кампанії', es: 'campañas aprobadas' },
    },
    campaign_rejected: {
      order: 60,
      labels: { en: 'campaigns that need changes', ru: 'кампаниях, требующих изменений', uk: 'кампанії, що потребують змін', es: 'campañas que necesitan cambios' },
    },
  },
});
