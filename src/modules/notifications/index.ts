/** In-app notifications: other modules write one with `notify` in their transaction, or react through events. */
export { notify, type NotifyInput, type NotificationPriority } from './notifications.service';
export { notificationSubscribers } from './notifications.events';
