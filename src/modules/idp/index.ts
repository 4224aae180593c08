/**
 * Public face of identity: sign-up and sign-out for the Cognito-shaped endpoint (local-idp),
 * issuing a session after social sign-in (oauth), and the operator's account commands (cli).
 */
export { globalSignOut, signUp, type SignUpInput } from './idp.service';
export { issueSessionForUser, type SessionUser } from './session';
export * as accountAdmin from './idp.admin';
export { findProfile, slugHolder, updateProfile, type ProfilePatch, type ProfileRow } from './idp.profiles';
export { changePassword, forgotPassword, resetPassword } from './idp.passwords';
export { pruneExpiredRefreshOwners } from './idp.repo';
export { assertNotThrottled, recordSignInFailure, resetSignInFailures, SignInThrottled } from './sign-in-throttle';
