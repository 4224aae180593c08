/** Public face of auth: the credential resolver (request -> actor) the composition root installs. */
export { createCredentialResolver } from './credential-resolver';
