import { defineModule } from '../define-module';
import routes from './endorsements.routes';
import { endorsementSubscribers } from './endorsements.events';
import { endorsementsPersonalData } from './endorsements.personal-data';

declare module '../notifications/notification-types' {
  interface NotificationTypeRegistry {
    endorsement_received: true;
  }
}

export default defineModule({
  name: 'endorsements',
  publishes: ['endorsement.created'],
  personalData: endorsementsPersonalData,
  routes: [routes],
  subscribers: endorsementSubscribers,
  notificationTypes: {
    endorsement_received: {
      order: 80,
      labels: { en: 'endorsements', ru: 'рекомендациях', uk: 'рекомендації', es: 'recomendaciones' },
    },
  },
});
