/**
 * Public face of verification: sending verification mails (login and private contact address),
 * and the single-use tokens behind their links, which identity redeems (GET /idp/verify-email).
 */
export { resendEmailVerification, sendEmailVerification, sendPrivateContactVerification } from './verification.service';
export {
  findTokenForUpdate as lockVerificationToken,
  markTokenUsed as markVerificationTokenUsed,
  pruneExpiredTokens as pruneExpiredVerificationTokens,
  type TokenKind,
  type VerificationTokenRow,
} from './verification.repo';
