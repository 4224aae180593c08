/**
 * The document's tags in the order a reader wants them: campaigns and the money first, then
 * engagement, community, organizations and media, accounts, and the service's own operations
 * last. A module's tag missing here is listed after these, in registration order.
 */
export const TAGS: { name: string; description: string }[] = [
  { name: 'fundraisers', description: 'Campaigns: create, edit, publish, read by id or slug, list and filter.' },
  { name: 'discovery', description: 'Categories, cities, ZIP and `near` lookups, platform stats.' },
  { name: 'donations', description: 'Gifts through Stripe Checkout or a PaymentIntent, their outcome for the return page, receipts and recent gifts.' },
  { name: 'embed', description: 'The embeddable campaign widget, outside /api/v1: a page for an iframe on any site, and the `<campaign-widget>` element that shows it.' },
  { name: 'tips', description: 'Tips to the platform, on their own or on top of a gift.' },
  { name: 'payouts', description: 'Creator earnings, connected processor accounts and payouts.' },
  { name: 'webhook-endpoints', description: 'Outbound webhooks for integrations: endpoints, signed deliveries (Standard Webhooks), delivery log and retries.' },
  { name: 'comments', description: 'Comments on campaigns, replies and likes.' },
  { name: 'project updates', description: 'Project updates, likes and their translations.' },
  { name: 'milestones', description: 'Project milestones and funding stats.' },
  { name: 'campaign-updates', description: "The signed-in person's feed of updates from campaigns they gave to or follow." },
  { name: 'follows', description: 'Following people and organizations.' },
  { name: 'notifications', description: 'In-app notifications: list, read, archive.' },
  { name: 'preferences', description: 'Notification and mail preferences.' },
  { name: 'unsubscribe', description: 'One-click unsubscribe links from mail.' },
  { name: 'profiles', description: 'Public profiles and donor pages.' },
  { name: 'users', description: "The signed-in person's own profile, private contact and blocks." },
  { name: 'me', description: "What the signed-in person may do, and their giving history." },
  { name: 'search', description: 'Search across campaigns, people and organizations.' },
  { name: 'leaderboard', description: 'Leaderboards and top creators.' },
  { name: 'activity', description: 'Home-page activity and presence.' },
  { name: 'achievements', description: 'Achievements and their share cards.' },
  { name: 'endorsements', description: 'Endorsements of campaigns.' },
  { name: 'ambassadors', description: 'Ambassador applications and impact.' },
  { name: 'referrals', description: 'Referral clicks and attribution.' },
  { name: 'trust', description: 'The trust centre.' },
  { name: 'organizations', description: 'Organizations, their members, documents and the org-admin panel.' },
  { name: 'communities', description: 'Paid communities of organizations.' },
  { name: 'media', description: 'Uploads, crops, AI covers.' },
  { name: 'share-images', description: 'Share images (og, poster, story) and the share kit.' },
  { name: 'gifs', description: 'GIF search for comments.' },
  { name: 'identity', description: 'Sign-up, sign-in, sessions and passwords (cookie sessions for the website).' },
  { name: 'idp', description: 'Identity provider details for native apps.' },
  { name: 'local-idp', description: 'The built-in identity provider: a Cognito-compatible endpoint, OpenID discovery and JWKS.' },
  { name: 'api-keys', description: 'API keys for scripts.' },
  { name: 'blocks', description: 'Blocking people.' },
  { name: 'reports', description: 'Reporting content.' },
  { name: 'dmca', description: 'DMCA notices.' },
  { name: 'admin', description: 'Staff review and moderation.' },
  { name: 'webhooks', description: 'The Stripe webhook (signed by Stripe).' },
  { name: 'sandbox', description: 'The sandbox processor (only without STRIPE_SECRET_KEY): hosted checkout and test controls.' },
  { name: 'features', description: 'Feature flags.' },
  { name: 'platform', description: 'Platform numbers, team and tips.' },
  { name: 'docs', description: 'This document and its viewer.' },
  { name: 'operations', description: 'Health and readiness checks, metrics.' },
  { name: 'privacy', description: 'Export of everything held about an account (a signed download link), erasure after a 14-day grace, and guests\' requests for their gifts.' },
];

/** The document's tags (known ones in reading order) and its paths regrouped by them. */
export function orderByTags(doc: Record<string, unknown>): Record<string, unknown> {
  const paths = (doc.paths ?? {}) as Record<string, Record<string, { tags?: string[] }>>;
  const used: string[] = [];
  for (const item of Object.values(paths)) {
    for (const op of Object.values(item)) for (const t of op?.tags ?? []) if (!used.includes(t)) used.push(t);
  }
  const known = TAGS.filter((t) => used.includes(t.name));
  const rest = used.filter((t) => !TAGS.some((k) => k.name === t)).map((name) => ({ name }));
  const tags = [...known, ...rest];
  const rank = (p: string) => {
    const first = Object.values(paths[p]!).find((op) => op?.tags?.length)?.tags?.[0];
    const i = tags.findIndex((t) => t.name === first);
    return i < 0 ? tags.length : i;
  };
  const keys = Object.keys(paths);
  const ordered = keys
    .map((p, i) => ({ p, i, r: rank(p) }))
    .sort((a, b) => a.r - b.r || a.i - b.i)
    .map(({ p }) => [p, paths[p]]);
  return { ...doc, tags, paths: Object.fromEntries(ordered) };
}
