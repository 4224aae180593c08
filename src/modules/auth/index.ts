/** Public face of auth: the credential resolver (request -> actor) and the token checks idp and local-idp share. */
export {
  actorFromClaims,
  actorFromSessionCookies,
  createCredentialResolver,
  liveOwner,
  verifyIdToken,
  type CredentialDeps,
} from './credential-resolver';
