/** Public face of verification: sending verification mails, and the private contact address it verifies. */
export { resendEmailVerification, sendEmailVerification, sendPrivateContactVerification } from './verification.service';
export { findUserContact, pruneExpiredTokens as pruneExpiredVerificationTokens, setPrivateContact } from './verification.repo';
