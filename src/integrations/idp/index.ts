import type { Knex } from 'knex';
import type { Config } from '../../config';
import { CognitoIdentityProvider } from './cognito-provider';
import { LocalIdentityProvider } from './local/local-provider';
import type { IdentityProvider } from './port';

export * from './port';
export { LocalIdentityProvider, LOCAL_CLIENT_ID } from './local/local-provider';
export { CognitoIdentityProvider } from './cognito-provider';
export { hasPassword as hasLocalPassword, pruneExpiredCodes as pruneExpiredIdpCodes, pruneExpiredSessions as pruneExpiredIdpSessions } from './local/local-idp.repo';

/** IDP=local (default) or IDP=cognito with the pool settings. */
export function createIdentityProvider(config: Config, db: Knex): IdentityProvider {
  if (config.IDP === 'cognito') {
    const { COGNITO_REGION, COGNITO_USER_POOL_ID, COGNITO_CLIENT_ID, COGNITO_CLIENT_SECRET } = config;
    if (!COGNITO_REGION || !COGNITO_USER_POOL_ID || !COGNITO_CLIENT_ID) {
      throw new Error('IDP=cognito needs COGNITO_REGION, COGNITO_USER_POOL_ID and COGNITO_CLIENT_ID');
    }
    return new CognitoIdentityProvider({
      region: COGNITO_REGION,
      userPoolId: COGNITO_USER_POOL_ID,
      clientId: COGNITO_CLIENT_ID,
      clientSecret: COGNITO_CLIENT_SECRET,
    });
  }
  return new LocalIdentityProvider(db, config.PUBLIC_URL);
}
