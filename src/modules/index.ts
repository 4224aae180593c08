import type { Config } from '../config';
import type { AppContext } from '../context';
import type { Subscriber } from '../events';
import type { RouteModule } from '../http/define-routes';
import { SHARED_LIMITERS, type Limiter } from '../http/rate-limits';
import type { PaymentKind } from '../integrations/payments';
import type { AppModule, Collected, DeclaredNotificationTypes } from './define-module';
import { campaignUpdatesFeed } from './feed';
import type { LedgerCheck } from './ledger';
import { notificationCatalog, type NotificationType } from './notifications';
import { giftImpact, giftsByChannel } from './referrals';
import { byKind, type WebhookHandlerMap } from './webhooks';
import achievements from './achievements/achievements.module';
import activity from './activity/activity.module';
import adminReview from './admin-review/admin-review.module';
import aiCovers from './ai-covers/ai-covers.module';
import ambassadors from './ambassadors/ambassadors.module';
import apiKeys from './api-keys/api-keys.module';
import audit from './audit/audit.module';
import backups from './backups/backups.module';
import auth from './auth/auth.module';
import blocks from './blocks/blocks.module';
import comments from './comments/comments.module';
import communities from './communities/communities.module';
import discovery from './discovery/discovery.module';
import dmca from './dmca/dmca.module';
import docs from './docs/docs.module';
import donations from './donations/donations.module';
import donorReads from './donor-reads/donor-reads.module';
import embed from './embed/embed.module';
import endorsements from './endorsements/endorsements.module';
import features from './features/features.module';
import feed from './feed/feed.module';
import follows from './follows/follows.module';
import fundraisers from './fundraisers/fundraisers.module';
import gifs from './gifs/gifs.module';
import health from './health/health.module';
import idp from './idp/idp.module';
import leaderboard from './leaderboard/leaderboard.module';
import ledger from './ledger/ledger.module';
import live from './live/live.module';
import localIdp from './local-idp/local-idp.module';
import me from './me/me.module';
import media from './media/media.module';
import milestones from './milestones/milestones.module';
import notifications from './notifications/notifications.module';
import oauth from './oauth/oauth.module';
import privacy from './privacy/privacy.module';
import organizations from './organizations/organizations.module';
import payouts from './payouts/payouts.module';
import platform from './platform/platform.module';
import preferences from './preferences/preferences.module';
import profiles from './profiles/profiles.module';
import readiness from './readiness/readiness.module';
import referrals from './referrals/referrals.module';
import reconciliation from './reconciliation/reconciliation.module';
import reports from './reports/reports.module';
import sandbox from './sandbox/sandbox.module';
import search from './search/search.module';
import shareImages from './share-images/share-images.module';
import team from './team/team.module';
import tips from './tips/tips.module';
import trust from './trust/trust.module';
import updates from './updates/updates.module';
import verification from './verification/verification.module';
import webhookEndpoints from './webhook-endpoints/webhook-endpoints.module';
import webhooks from './webhooks/webhooks.module';

/**
 * Every module, once: the one place a module is added. Each declares itself in its
 * `<name>/<name>.module.ts` (routes, subscribers, jobs, webhook handlers, ledger checks, limiters,
 * notification types); everything below is derived from this list. Mounting does not depend on
 * the order (route-table.ts sorts routes by specificity); it decides the order of paths within an
 * OpenAPI tag, of the subscriber jobs one event queues, and of check-ledger's report (the ledger's
 * own checks first). A module whose route table needs a read of a module that depends on its own
 * gets it here (fundraisers, notifications), so no module imports one that imports it back
 * (test/unit/import-cycles.test.ts checks folders).
 */
const MODULES = [
  health, docs, features, platform, idp, localIdp, verification, me, apiKeys, auth, discovery, oauth,
  fundraisers({ giftsByChannel, giftImpact }),
  adminReview, webhooks,
  notifications((ctx, userId) => campaignUpdatesFeed.unreadCount(ctx, userId)),
  ledger, donations, live, tips, donorReads, payouts, profiles, endorsements, leaderboard, referrals, activity, search,
  ambassadors, team, trust, readiness, organizations, follows, feed, blocks, reports, preferences, updates,
  milestones, communities, media, achievements, shareImages, aiCovers, gifs, dmca, comments, webhookEndpoints, audit,
  privacy, reconciliation, backups, embed, sandbox,
] as const;

// Compile-time: every type a module adds to NotificationTypeRegistry is declared (with its
// labels, or as having no toggle) in some module's `notificationTypes`. An error here names the
// types whose module file has the `declare module` but not the declaration.
type Undeclared = Exclude<NotificationType, DeclaredNotificationTypes<(typeof MODULES)[number]>>;
const everyNotificationTypeDeclared: [Undeclared] extends [never] ? true : { undeclared: Undeclared } = true;
void everyNotificationTypeDeclared;

export const appModules: readonly AppModule[] = MODULES;

/**
 * The Stripe webhook's handler map: modules owning a payment kind are merged by the `ref.kind`
 * of their events (webhooks/by-kind.ts, in list order); a module with `ref: null` handles kinds
 * no other module handles. Kinds handled by no module answer 200 and are recorded as ignored.
 */
function webhookHandlersOf(mods: readonly AppModule[]): WebhookHandlerMap {
  const byRef: Partial<Record<PaymentKind, WebhookHandlerMap>> = {};
  const unreferenced: WebhookHandlerMap[] = [];
  for (const m of mods) {
    if (!m.webhookHandlers) continue;
    const { ref, handlers } = m.webhookHandlers;
    if (ref === null) unreferenced.push(handlers);
    else if (byRef[ref]) throw new Error(`two modules own payment kind ${ref}`);
    else byRef[ref] = handlers;
  }
  const out: Record<string, unknown> = byKind(byRef);
  for (const handlers of unreferenced) {
    for (const [kind, handler] of Object.entries(handlers)) {
      if (out[kind]) throw new Error(`payment event ${kind} is handled by a module without a payment kind and by another`);
      out[kind] = handler;
    }
  }
  return out as WebhookHandlerMap;
}

export const collected: Collected = {
  webhookHandlers: webhookHandlersOf(appModules),
  notificationTypes: notificationCatalog(appModules.flatMap((m) => (m.notificationTypes ? [m.notificationTypes] : []))),
  personalData: appModules.flatMap((m) => (m.personalData ? [{ module: m.name, part: m.personalData }] : [])),
};

const routesOf = (m: AppModule): readonly RouteModule[] => (typeof m.routes === 'function' ? m.routes(collected) : (m.routes ?? []));

/** Every route table the app mounts and documents whatever the configuration (the sandbox's aside). */
export const modules: RouteModule[] = appModules.filter((m) => m !== sandbox).flatMap(routesOf);

/**
 * The route tables a process serves: `modules`, plus the sandbox processor's pages and test
 * controls while STRIPE_SECRET_KEY is unset (docs/decisions/0008-sandbox-processor.md: they exist only then).
 */
export function modulesFor(config: Pick<Config, 'STRIPE_SECRET_KEY'>): RouteModule[] {
  return config.STRIPE_SECRET_KEY ? modules : [...modules, ...routesOf(sandbox)];
}

/** Every module's event subscribers (src/jobs/index.ts registers them). */
export const subscribers: Subscriber[] = appModules.flatMap((m) => m.subscribers ?? []);

/** Registers every module's job queues (src/jobs/index.ts adds the queues outside modules). */
export function registerModuleJobs(ctx: AppContext): void {
  for (const m of appModules) m.jobs?.(ctx, collected);
}

/** Every integrity check over the money figures, by name (src/modules/integrity.ts runs them). */
export const ledgerChecks: Record<string, LedgerCheck> = {};
for (const m of appModules) {
  for (const [name, check] of Object.entries(m.checks ?? {})) {
    if (ledgerChecks[name]) throw new Error(`two ledger checks are named ${name}`);
    ledgerChecks[name] = check;
  }
}

/** Every limiter: the shared ones (http/rate-limits.ts) and each module's own. */
export const limiters: readonly Limiter[] = [...Object.values(SHARED_LIMITERS), ...appModules.flatMap((m) => m.limiters ?? [])];
