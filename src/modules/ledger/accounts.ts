/**
 * Ledger account names. Amounts are signed cents; positive is a debit, negative a credit, and
 * every group sums to zero per currency. Asset accounts carry positive balances, liabilities and
 * revenue negative ones: what the platform owes a campaign is minus its account's balance.
 */
export const accounts = {
  /** Money held in the platform's processor balance (asset). */
  processorBalance: 'asset:processor_balance',
  /** What the platform owes a campaign's holder for this campaign (liability). */
  campaign: (fundraiserId: string) => `liability:campaign:${fundraiserId}`,
  /** Tips to the platform (revenue). */
  tips: 'revenue:tips',
  /** The platform's fee on donations (revenue), PLATFORM_FEE_BPS. */
  platformFees: 'revenue:platform_fees',
  /** The processor's fees, charged to the campaign's share (expense passed through). */
  processorFees: 'expense:processor_fees',
  /** Money sitting in a holder's connected account, not yet paid out (asset of the holder, tracked here). */
  connected: (processorAccountId: string) => `asset:connected:${processorAccountId}`,
  /** What the connected account owes its holder until it pays out (liability mirror of `connected`). */
  connectedPayable: (processorAccountId: string) => `liability:connected:${processorAccountId}`,
  /** A paid community's fund: what members paid in, less fees and withdrawals (liability). */
  communityFund: (communityId: string) => `liability:community:${communityId}`,
  /** Money lost to disputes or refunds beyond a campaign's balance (expense). */
  losses: 'expense:losses',
} as const;

export type LedgerKind =
  | 'donation'
  | 'tip'
  | 'processor_fee'
  | 'platform_fee'
  | 'refund'
  | 'dispute'
  | 'dispute_reversal'
  /** The processor's fee for handling a dispute (a loss of the platform's), or its return. */
  | 'dispute_fee'
  | 'transfer'
  | 'transfer_reversal'
  | 'payout'
  | 'payout_reversal'
  | 'community_payment'
  | 'community_withdrawal';

/** Kinds whose entries on a campaign's account move its raised total (fees and transfers do not). */
export const RAISED_KINDS: LedgerKind[] = ['donation', 'refund', 'dispute', 'dispute_reversal'];

/** Kinds of the fees taken from a campaign's share (the processor's and the platform's). */
export const FEE_KINDS: LedgerKind[] = ['processor_fee', 'platform_fee'];
