import { defineModule } from '../define-module';
import routes from './follows.routes';
import { followSubscribers } from './follows.events';
import { followsPersonalData } from './follows.personal-data';

declare module '../notifications/notification-types' {
  interface NotificationTypeRegistry {
    new_follower: true;
  }
}

export default defineModule({
  name: 'follows',
  publishes: ['follow.created'],
  personalData: followsPersonalData,
  routes: [routes],
  subscribers: followSubscribers,
  notificationTypes: {
    new_follower: {
      order: 30,
      labels: { en: 'new followers', ru: 'новых подписчиках', uk: 'нових підписників', es: 'nuevos seguidores' },
    },
  },
});
