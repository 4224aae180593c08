/** The campaign-updates feed of connected users: its badge count and its reaction to new updates. */
export { campaignUpdatesFeed } from './feed.service';
