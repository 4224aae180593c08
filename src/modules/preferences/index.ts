/**
 * Email preferences per notification type, unsubscribe links, and the mail of each notification.
 * Nothing outside it needs more than what its module file declares (route tables and the mail
 * job, over the notification types src/modules/index.ts collects from every module).
 */
export {};
