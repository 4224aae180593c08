/** Follows of users and organizations; the campaign-updates feed reads who follows whom. */
export { followSubscribers } from './follows.events';
