/**
 * Public face of identity: sign-up and sign-out for the Cognito-shaped endpoint (local-idp),
 * issuing a session after social sign-in (oauth), the operator's account commands (cli), whose
 * an ID token is (the credential resolver in auth), and the accounts (users) it owns: their
 * public fields and the named commands other modules change them with.
 */
export { actorFromClaims, actorFromSessionCookies, liveOwner, verifyIdToken, type CredentialDeps } from './credentials';
export { globalSignOut, signUp, type SignUpInput } from './idp.service';
export { issueSessionForUser, type SessionUser } from './session';
export * as accountAdmin from './idp.admin';
export { findProfile, slugHolder, updateProfile, type ProfilePatch, type ProfileRow } from './idp.profiles';
export { changePassword, forgotPassword, resetPassword } from './idp.passwords';
export { pruneExpiredRefreshOwners } from './idp.repo';
export {
  accountExists,
  joinPublicUser,
  publicUserJoinSql,
  publicUsers,
  userContact,
  userLocale,
  userName,
  userProfile,
  type PublicUser,
  type UserContact,
  type UserProfile,
} from './users.reads';
export {
  accountByEmailForUpdate,
  createSocialAccount,
  lockAccountRow,
  setPrivateContact,
  type AccountRow,
} from './accounts.repo';
export { SignInThrottled, throttledPasswordAttempt } from './sign-in-throttle';
