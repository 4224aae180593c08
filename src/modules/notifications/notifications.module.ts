import type { AppContext } from '../../context';
import { defineModule } from '../define-module';
import { notificationSubscribers } from './notifications.events';
import { notificationsRoutes } from './notifications.routes';
import { notificationsPersonalData } from './notifications.personal-data';

declare module '../notifications/notification-types' {
  interface NotificationTypeRegistry {
    donation_received: true;
    payout_paid: true;
    goal_reached: true;
  }
}

/** The list carries the campaign-updates feed's unread count; the feed notifies through this module, so src/modules/index.ts passes its counter in. */
export default (feedUnreadCount: (ctx: AppContext, userId: string) => Promise<number>) =>
  defineModule({
    name: 'notifications',
    personalData: notificationsPersonalData,
    routes: [notificationsRoutes(feedUnreadCount)],
    subscribers: notificationSubscribers,
    notificationTypes: {
      donation_received: {
        order: 10,
        labels: { en: 'new donations', ru: 'новых пожертвованиях', uk: 'нові внески', es: 'nuevas donaciones' },
      },
      payout_paid: {
        order: 70,
        labels: { en: 'payouts', ru: 'выплатах', uk: 'виплати', es: 'pagos' },
      },
      goal_reached: {
        order: 90,
        labels: { en: 'goals reached', ru: 'достигнутых целях', uk: 'досягнуті цілі', es: 'metas alcanzadas' },
      },
    },
  });
