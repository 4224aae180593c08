/** In-app notifications: other modules write one with `notify` in their transaction, or react through events. */
export { notify, recipientLocale, NOTIFICATION_MAIL_QUEUE, type NotifyInput, type NotificationPriority } from './notifications.service';
export { findById as findNotification, type NotificationRow } from './notifications.repo';
export { notificationCatalog, type NotificationCatalog, type NotificationType, type NotificationTypeSpec } from './notification-types';
