/**
 * The one form an address is stored and compared in: trimmed, lower case (the unique index is
 * on lower(email), so every lookup, link and counter must agree with it).
 */
export const normalizeEmail = (email: string): string => email.trim().toLowerCase();
