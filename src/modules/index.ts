import type { Config } from '../config';
import type { RouteModule } from '../http/define-routes';
import docs from './docs/docs.routes';
import features from './features/features.routes';
import health from './health/health.routes';
import platform from './platform/platform.routes';
import idp from './idp/idp.routes';
import localIdp from './local-idp/local-idp.routes';
import apiKeys from './api-keys/api-keys.routes';
import capabilities from './me/capabilities.routes';
import privateContact from './me/private-contact.routes';
import verification from './verification/verification.routes';
import oauth from './oauth/oauth.routes';
import discovery from './discovery/discovery.routes';
import { fundraisersRoutes } from './fundraisers/fundraisers.routes';
import comments from './comments/comments.routes';
import adminReview from './admin-review/admin-review.routes';
import { webhookRoutes } from './webhooks/webhooks.routes';
import { webhookHandlers } from './webhook-handlers';
import donorReadsRoutes from './donor-reads/donor-reads.routes';
import payoutsRoutes from './payouts/payouts.routes';
import processorAccountsRoutes from './payouts/processor-accounts.routes';
import sandboxRoutes from './sandbox/sandbox.routes';
import { notificationsRoutes } from './notifications/notifications.routes';
import { campaignUpdatesFeed } from './feed';
import { giftImpact, giftsByChannel } from './referrals';
import donations from './donations/donations.routes';
import tips from './tips/tips.routes';
import referrals from './referrals/referrals.routes';
import activity from './activity/activity.routes';
import search from './search/search.routes';
import ambassadors from './ambassadors/ambassadors.routes';
import team from './team/team.routes';
import trust from './trust/trust.routes';
import readiness from './readiness/readiness.routes';
import profiles from './profiles/profiles.routes';
import endorsements from './endorsements/endorsements.routes';
import leaderboard from './leaderboard/leaderboard.routes';
import organizations from './organizations/organizations.routes';
import orgAdmin from './organizations/org-admin.routes';
import orgPayouts from './payouts/org-payouts.routes';
import orgAdminMembers from './organizations/org-admin-members.routes';
import follows from './follows/follows.routes';
import campaignUpdates from './feed/feed.routes';
import blocks from './blocks/blocks.routes';
import reports from './reports/reports.routes';
import preferences from './preferences/preferences.routes';
import unsubscribe from './preferences/unsubscribe.routes';
import projectUpdates from './updates/updates.routes';
import milestones from './milestones/milestones.routes';
import communities from './communities/communities.routes';
import media from './media/media.routes';
import mediaFiles from './media/media-files.routes';
import shareImages from './share-images/share-images.routes';
import achievements from './achievements/achievements.routes';
import aiCovers from './ai-covers/ai-covers.routes';
import gifs from './gifs/gifs.routes';
import dmca from './dmca/dmca.routes';
import webhookEndpoints from './webhook-endpoints/webhook-endpoints.routes';

// Route tables that need another module's read get it here, where every module is in view, so
// no module imports one that imports it back (test/unit/import-cycles.test.ts checks folders).
const webhooks = webhookRoutes(webhookHandlers);
const fundraisers = fundraisersRoutes({ giftsByChannel, giftImpact });
const notifications = notificationsRoutes((ctx, userId) => campaignUpdatesFeed.unreadCount(ctx, userId));

/**
 * Every module's route table. Add a module here and it is mounted and documented. Route tables
 * are imported from their `*.routes.ts` here, never re-exported by a module's index: a route file
 * reaches into services that import other modules, so through the indexes they would form cycles.
 */
export const modules: RouteModule[] = [health, docs, features, platform, idp, localIdp, verification, privateContact, apiKeys, capabilities, discovery, oauth, fundraisers, comments, adminReview, webhooks, notifications, donations, tips, donorReadsRoutes, payoutsRoutes, processorAccountsRoutes, profiles, endorsements, leaderboard, referrals, activity, search, ambassadors, team, trust, readiness, organizations, orgAdmin, orgPayouts, orgAdminMembers, follows, campaignUpdates, blocks, reports, preferences, unsubscribe, projectUpdates, milestones, communities, media, mediaFiles, shareImages, aiCovers, gifs, dmca, achievements, webhookEndpoints];

/**
 * The route tables a process serves: `modules`, plus the sandbox processor's pages and test
 * controls while STRIPE_SECRET_KEY is unset (decisions.md: they exist only then).
 */
export function modulesFor(config: Pick<Config, 'STRIPE_SECRET_KEY'>): RouteModule[] {
  return config.STRIPE_SECRET_KEY ? modules : [...modules, sandboxRoutes];
}
