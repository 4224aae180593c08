/** Email preferences per notification type, unsubscribe links, and the mail of each notification. */
export { sendNotificationMail } from './notification-mail';
export { emailEnabled, emailToggles } from './preferences.service';
export { NOTIFICATION_TYPES, type NotificationType } from './preferences.types';
