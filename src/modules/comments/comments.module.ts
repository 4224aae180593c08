import { defineModule } from '../define-module';
import routes from './comments.routes';
import { commentSubscribers } from './comments.events';
import { commentsPersonalData } from './comments.personal-data';

declare module '../notifications/notification-types' {
  interface NotificationTypeRegistry {
    comment_received: true;
  }
}

export default defineModule({
  name: 'comments',
  publishes: ['comment.created'],
  personalData: commentsPersonalData,
  routes: [routes],
  subscribers: commentSubscribers,
  notificationTypes: {
    comment_received: {
      order: 20,
      labels: { en: 'new comments', ru: 'новых комментариях', uk: 'нові коментарі', es: 'nuevos comentarios' },
    },
  },
});
