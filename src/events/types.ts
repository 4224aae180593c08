/**
 * Every event the service emits, with its payload. A module that emits a new event adds it here;
 * subscribers in other modules then get a typed payload. Payloads carry ids and the facts a
 * subscriber needs at the time of the change (amounts, names), never secrets.
 */
export interface EventMap {
  /** A gift settled (pending -> paid). */
  'donation.paid': {
    donation_id: string;
    fundraiser_id: string;
    /** The campaign's holder (the owner, or the organization's owner for org campaigns). */
    holder_user_id: string;
    /** The organization holding the campaign (its payouts go to the organization's account); null for a person's campaign. */
    holder_org_id?: string | null;
    donor_user_id: string | null;
    donor_email: string | null;
    donor_name: string | null;
    anonymous: boolean;
    amount_cents: number;
    tip_cents: number;
    currency: string;
    receipt_id: string;
    /** The `ref` the donor paid with (absent on events queued before it was carried). */
    referral_code?: string | null;
    /** The donor's public message, and when the gift settled (absent on events queued before they were carried). */
    message?: string | null;
    paid_at?: string;
  };
  /** A gift was refunded, fully or in part. */
  'donation.refunded': {
    donation_id: string;
    fundraiser_id: string;
    refunded_cents: number;
    fully: boolean;
  };
  /**
   * A dispute took money back from a gift (opened, or closed lost before it was seen open):
   * `disputed_cents` is the dispute's amount. A won dispute emits nothing.
   */
  'donation.disputed': {
    donation_id: string;
    fundraiser_id: string;
    disputed_cents: number;
  };
  /** A campaign's paid total reached its goal for the first time. */
  'fundraiser.goal_reached': { fundraiser_id: string; holder_user_id: string };
  /** A campaign went live (active): on create or publish past the gate, or approved by staff. */
  'fundraiser.published': { fundraiser_id: string; owner_user_id: string; org_id: string | null };
  /** An edit changed what the campaign shows others (title, cover, goal, category, status, visibility): `fields` names the columns. */
  'fundraiser.updated': { fundraiser_id: string; fields: string[] };
  /** A monthly gift's first payment settled: it now gives every month. */
  'recurring_gift.started': {
    recurring_gift_id: string;
    fundraiser_id: string;
    holder_user_id: string;
    holder_org_id: string | null;
    donor_name: string | null;
    anonymous: boolean;
    amount_cents: number;
    tip_cents: number;
    currency: string;
    started_at: string;
  };
  /** A monthly gift ended: by its donor, by its campaign closing, after the processor's last retry, or by an erasure. */
  'recurring_gift.canceled': {
    recurring_gift_id: string;
    fundraiser_id: string;
    canceled_by: 'donor' | 'campaign' | 'processor' | 'erasure' | 'checkout';
    reason: string | null;
    canceled_at: string;
  };
  /** A renewal of a monthly gift was declined (first decline of that invoice); the processor retries. */
  'recurring_gift.payment_failed': { recurring_gift_id: string; invoice_id: string; update_url: string | null };
  /** A platform tip settled (first payment, or a monthly renewal). */
  'tip.paid': { tip_id: string; amount_cents: number; cadence: 'one_time' | 'recurring'; email: string | null; user_id: string | null };
  /** A signed-in user endorsed a campaign (first time, or again after withdrawing). */
  'endorsement.created': { fundraiser_id: string; endorser_user_id: string; holder_user_id: string; message: string | null };
  /** A payout from a connected account reached the holder's bank. */
  'payout.paid': { payout_id: string; processor_account_id: string; holder_user_id: string | null; amount_cents: number; currency: string };
  /** A payout from a connected account failed (its money went back to the account). */
  'payout.failed': { payout_id: string; processor_account_id: string; holder_user_id: string | null; amount_cents: number; currency: string };
  /**
   * A signed-in user commented on a campaign; `parent_id` is the top-level comment a reply joins
   * (null for a top-level comment). The campaign's holder and the parent's author are notified;
   * integrators' endpoints receive it as `comment.created`.
   */
  'comment.created': { comment_id: string; fundraiser_id: string; parent_id: string | null; author_user_id: string; created_at: string };
  /** The owner posted a project update on a campaign (connected users' feeds and notifications react). */
  'update.posted': { update_id: string; fundraiser_id: string; author_user_id: string; created_at: string };
  /** Someone started following a user or an organization (a new follow, not a repeated one). */
  'follow.created': { follow_id: string; follower_id: string; following_type: 'user' | 'organization'; following_id: string };
  /** A user blocked another: the blocked user's follows of the blocker end. */
  'user.blocked': { blocker_id: string; blocked_id: string };
  /** A paid join request saved its card and now waits for a community leader's decision. */
  'community.join_requested': { join_id: string; community_id: string; requester_user_id: string };
  /** A leader decided a join request (approved: the subscription was created on the saved card). */
  'community.join_decided': { join_id: string; community_id: string; requester_user_id: string; decision: 'approved' | 'declined' };
}

export type EventType = keyof EventMap;
