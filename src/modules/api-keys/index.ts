/** Public face of API keys: the credential resolver checks a bearer key; account admin revokes them all. */
export { resolveApiKey } from './api-keys.service';
export { revokeAllForUser } from './api-keys.repo';
