import { z } from 'zod';
import { LOCAL_CLIENT_ID } from '../../integrations/idp';

/**
 * OpenID Connect discovery for the built-in provider, so OIDC libraries find the issuer and JWKS
 * from the issuer URL alone (as they do for Cognito's cognito-idp.<region>.amazonaws.com/<pool>).
 * Only what exists is listed: there is no browser authorization or token endpoint (sign-in is
 * Cognito's JSON protocol on POST /local-idp/), hence no response types.
 */
export function openIdConfiguration(issuer: string) {
  return {
    issuer,
    jwks_uri: `${issuer}/.well-known/jwks.json`,
    id_token_signing_alg_values_supported: ['RS256'],
    subject_types_supported: ['public'],
    response_types_supported: [] as string[],
    scopes_supported: ['openid', 'email', 'aws.cognito.signin.user.admin'],
    claims_supported: ['sub', 'iss', 'aud', 'exp', 'iat', 'auth_time', 'jti', 'token_use', 'email', 'email_verified', 'cognito:username', 'origin_jti', 'event_id'],
    // Not standard metadata: what native apps need beside the issuer.
    'x-cognito-endpoint': issuer,
    'x-client-id': LOCAL_CLIENT_ID,
  };
}

export const openIdConfigurationSchema = z.object({
  issuer: z.string().describe('PUBLIC_URL + /local-idp; the `iss` of every token'),
  jwks_uri: z.string(),
  id_token_signing_alg_values_supported: z.array(z.literal('RS256')),
  subject_types_supported: z.array(z.string()),
  response_types_supported: z.array(z.string()).describe('empty: no authorization endpoint (sign-in is POST /local-idp/)'),
  scopes_supported: z.array(z.string()),
  claims_supported: z.array(z.string()),
  'x-cognito-endpoint': z.string().describe('the AWS SDK endpoint (Cognito JSON protocol)'),
  'x-client-id': z.string().describe('the app client id (ClientId, `aud` of ID tokens)'),
});
