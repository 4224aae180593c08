import type { Request, Response } from 'express';
import { z } from 'zod';
import type { AppContext } from '../../context';
import { defineRoutes, route } from '../../http/define-routes';
import { ApiError } from '../../http/errors';
import { normalizeEmail } from '../../infra/email';
import { LocalIdentityProvider, LOCAL_CLIENT_ID } from '../../integrations/idp';
import { AMZ_JSON, COGNITO_TARGET_PREFIX as TARGET_PREFIX, sendCognitoFault } from '../../integrations/idp/cognito-faults';
import { globalSignOut, liveOwner, SignInThrottled, signUp, throttledPasswordAttempt } from '../idp';
import { ACCOUNT_OPERATIONS, accountRequestFields, accountResponses } from './local-idp.account-ops';
import { authResult, checkClient, CognitoFault, localIdp, str, toFault, type Op } from './local-idp.protocol';
import { openIdConfiguration, openIdConfigurationSchema } from './openid-configuration';

const OPERATIONS: Record<string, Op> = {
  async InitiateAuth(ctx, body) {
    const idp = localIdp(ctx);
    checkClient(body);
    const params = (body.AuthParameters ?? {}) as Record<string, unknown>;
    if (body.AuthFlow === 'USER_PASSWORD_AUTH') {
      const email = normalizeEmail(str(params.USERNAME, 'USERNAME'));
      const password = str(params.PASSWORD, 'PASSWORD');
      // The per-account throttle of POST /idp/signin, in Cognito's words (docs/decisions/0019-per-account-sign-in-throttle.md).
      let r;
      try {
        r = await throttledPasswordAttempt(ctx.db, email, () => idp.initiateAuth(email, password));
      } catch (err) {
        if (err instanceof SignInThrottled) throw new CognitoFault('NotAuthorizedException', 'Password attempts exceeded');
        throw err;
      }
      if (r.kind === 'challenge') {
        return { ChallengeName: r.challengeName, Session: r.session, ChallengeParameters: { USER_ID_FOR_SRP: params.USERNAME } };
      }
      return authResult(r.tokens);
    }
    if (body.AuthFlow === 'REFRESH_TOKEN_AUTH' || body.AuthFlow === 'REFRESH_TOKEN') {
      return authResult(await idp.refresh(str(params.REFRESH_TOKEN, 'REFRESH_TOKEN')));
    }
    throw new CognitoFault('InvalidParameterException', `Unsupported AuthFlow ${String(body.AuthFlow)}`);
  },
  async RespondToAuthChallenge(ctx, body) {
    const idp = localIdp(ctx);
    checkClient(body);
    if (body.ChallengeName !== 'NEW_PASSWORD_REQUIRED') throw new CognitoFault('InvalidParameterException', 'Unsupported challenge');
    const r = (body.ChallengeResponses ?? {}) as Record<string, unknown>;
    const out = await idp.respondToNewPasswordChallenge(
      normalizeEmail(str(r.USERNAME, 'USERNAME')),
      str(body.Session, 'Session'),
      str(r.NEW_PASSWORD, 'NEW_PASSWORD'),
    );
    return out.kind === 'tokens' ? authResult(out.tokens) : { ChallengeName: out.challengeName, Session: out.session };
  },
  async SignUp(ctx, body) {
    localIdp(ctx);
    checkClient(body);
    const attrs = Array.isArray(body.UserAttributes) ? (body.UserAttributes as Array<{ Name?: string; Value?: string }>) : [];
    const username = str(body.Username, 'Username');
    const email = attrs.find((a) => a.Name === 'email')?.Value ?? username;
    if (!z.email().safeParse(email).success) throw new CognitoFault('InvalidParameterException', 'Invalid email address format.');
    const name = attrs.find((a) => a.Name === 'name')?.Value ?? null;
    // Same rules as POST /idp/signup (flag, 409, verification mail); CAPTCHA is for browsers.
    if (!(await ctx.flags.isEnabled('features.user_registration'))) {
      throw new CognitoFault('NotAuthorizedException', 'Sign-up is currently disabled.');
    }
    const out = await signUp(ctx, null, { email, password: str(body.Password, 'Password'), name });
    return { UserConfirmed: out.userConfirmed, UserSub: out.user.id };
  },
  async ConfirmSignUp(ctx, body) {
    const idp = localIdp(ctx);
    checkClient(body);
    await idp.confirmSignUp(normalizeEmail(str(body.Username, 'Username')), str(body.ConfirmationCode, 'ConfirmationCode'));
    return {};
  },
  async GlobalSignOut(ctx, body) {
    const idp = localIdp(ctx);
    const claims = await idp.verifyOwnToken(str(body.AccessToken, 'AccessToken'));
    if (!claims || claims.token_use !== 'access' || claims.client_id !== LOCAL_CLIENT_ID || !claims.sub) {
      throw new CognitoFault('NotAuthorizedException', 'Invalid Access Token');
    }
    // As Cognito: once signed out (here or anywhere), the access token is revoked for good.
    const owner = await liveOwner(ctx, claims).catch((err: unknown) => {
      if (err instanceof ApiError && err.status === 401) return null;
      throw err;
    });
    if (!owner) throw new CognitoFault('NotAuthorizedException', 'Access Token has been revoked');
    await globalSignOut(ctx, owner.id);
    return {};
  },
  ...ACCOUNT_OPERATIONS,
};

async function dispatch(ctx: AppContext, req: Request, res: Response): Promise<void> {
  const target = req.headers['x-amz-target'];
  const op = typeof target === 'string' && target.startsWith(TARGET_PREFIX) ? OPERATIONS[target.slice(TARGET_PREFIX.length)] : undefined;
  let out: unknown;
  try {
    if (!op) throw new CognitoFault('UnknownOperationException', `Unsupported operation ${String(target ?? '')}`);
    const body = req.body && typeof req.body === 'object' ? (req.body as Record<string, unknown>) : {};
    out = await op(ctx, body, req);
  } catch (err) {
    let fault = toFault(err);
    if (!fault) {
      // The SDK cannot read the API's error shape: an unexpected failure is Cognito's internal error.
      req.log?.error({ err }, 'local-idp: unhandled error');
      fault = new CognitoFault('InternalErrorException', 'Internal server error', 500);
    }
    return sendCognitoFault(res, fault.type, fault.message, fault.status);
  }
  res.status(200).type(AMZ_JSON).send(JSON.stringify(out));
}

/** Operations that guess a password or a code, or send a mail: they count against the auth limiter. */
const LIMITED = new Set(['SignUp', 'ConfirmSignUp', 'RespondToAuthChallenge', 'ForgotPassword', 'ConfirmForgotPassword', 'ResendConfirmationCode', 'ChangePassword']);

function isPasswordOperation(req: Request): boolean {
  const op = String(req.headers['x-amz-target'] ?? '').slice(TARGET_PREFIX.length);
  if (op === 'InitiateAuth') return (req.body as { AuthFlow?: unknown } | undefined)?.AuthFlow === 'USER_PASSWORD_AUTH';
  return LIMITED.has(op);
}

/** The well-known documents are plain HTTP reads: 404 in the API's shape when IDP=cognito. */
function localIdpForDocs(ctx: AppContext): LocalIdentityProvider {
  if (!(ctx.idp instanceof LocalIdentityProvider)) throw new ApiError(404, 'Not found', 'The built-in identity provider is off');
  return ctx.idp;
}

// OpenAPI only: the dispatcher reads the body itself and answers Cognito's { __type, message } faults.
const amzString = z.string().optional();
const requestBody = z.looseObject({
  ClientId: amzString.describe(`The app client id: "${LOCAL_CLIENT_ID}" (not needed by GlobalSignOut)`),
  AuthFlow: z.enum(['USER_PASSWORD_AUTH', 'REFRESH_TOKEN_AUTH']).optional().describe('InitiateAuth'),
  AuthParameters: z
    .object({ USERNAME: amzString, PASSWORD: amzString, REFRESH_TOKEN: amzString })
    .optional()
    .describe('InitiateAuth: USERNAME (email) + PASSWORD, or REFRESH_TOKEN'),
  Username: amzString.describe('SignUp, ConfirmSignUp: the email address'),
  UserAttributes: z
    .array(z.object({ Name: z.string(), Value: z.string() }))
    .optional()
    .describe('SignUp: email and optional name (never derived from the email)'),
  ChallengeName: z.literal('NEW_PASSWORD_REQUIRED').optional().describe('RespondToAuthChallenge'),
  Session: amzString.describe('RespondToAuthChallenge: the Session of the challenge'),
  ChallengeResponses: z.object({ USERNAME: amzString, NEW_PASSWORD: amzString }).optional().describe('RespondToAuthChallenge'),
  ...accountRequestFields,
});
const responseBody = z.union([
  z.object({
    AuthenticationResult: z.object({
      IdToken: z.string().describe('Send this one as the bearer on the API'),
      AccessToken: z.string().describe('Only for GlobalSignOut; refused as an API bearer (401 Invalid token)'),
      RefreshToken: z.string().optional().describe('USER_PASSWORD_AUTH only; 90 days'),
      ExpiresIn: z.literal(3600),
      TokenType: z.literal('Bearer'),
    }),
    ChallengeParameters: z.record(z.string(), z.unknown()),
  }),
  z.object({ ChallengeName: z.literal('NEW_PASSWORD_REQUIRED'), Session: z.string(), ChallengeParameters: z.record(z.string(), z.unknown()).optional() }),
  z.object({ UserConfirmed: z.boolean(), UserSub: z.string() }).describe('SignUp'),
  ...accountResponses,
  z.object({}).describe('ConfirmSignUp, GlobalSignOut, ConfirmForgotPassword, ChangePassword'),
]);

export default defineRoutes('/local-idp', [
  route({
    method: 'post',
    path: '/',
    summary: "Built-in identity provider speaking Cognito's JSON protocol (X-Amz-Target AWSCognitoIdentityProviderService.<Operation>)",
    description: `Headers: X-Amz-Target: AWSCognitoIdentityProviderService.<Operation> and Content-Type: application/x-amz-json-1.1. Operations: InitiateAuth (USER_PASSWORD_AUTH, REFRESH_TOKEN_AUTH), RespondToAuthChallenge (NEW_PASSWORD_REQUIRED), SignUp, ConfirmSignUp, GlobalSignOut, ForgotPassword (mails a 6-digit code, one hour; the same answer whether or not the account exists), ConfirmForgotPassword (signs the account out everywhere), ResendConfirmationCode (accounts are confirmed at sign-up: mails a new email-verification link to an unverified address), GetUser and ChangePassword (with the access token). ClientId is "${LOCAL_CLIENT_ID}". Failures answer 400 (500 for InternalErrorException) with { __type, message } in application/x-amz-json-1.1 and an x-amzn-ErrorType header: NotAuthorizedException, UsernameExistsException, InvalidPasswordException, CodeMismatchException, ExpiredCodeException, UserNotConfirmedException, InvalidParameterException, ResourceNotFoundException, UnknownOperationException, TooManyRequestsException (the auth rate limit on password, code and mail operations), InternalErrorException. GlobalSignOut with an access token already signed out answers NotAuthorizedException.`,
    auth: 'none',
    // Password guesses and code guesses count against the auth limiter; token refreshes do not.
    limiters: [{ name: 'auth', when: isPasswordOperation }],
    produces: AMZ_JSON,
    consumes: { mediaType: AMZ_JSON, schema: requestBody },
    errorResponse: {
      statuses: [400, 500, 503],
      mediaType: AMZ_JSON,
      schema: z.object({ __type: z.string().describe('The exception, also in the x-amzn-ErrorType header'), message: z.string() }),
      description: "Cognito's fault shape, as the AWS SDK reads it: 400 for every client fault (TooManyRequestsException for the auth rate limit), 500 InternalErrorException, 503 while the database is unreachable",
    },
    response: responseBody,
    handler: ({ ctx, req, res }) => dispatch(ctx, req, res),
  }),
  route({
    method: 'get',
    path: '/.well-known/openid-configuration',
    summary: 'OpenID Connect discovery document of the built-in identity provider',
    description: 'issuer (PUBLIC_URL + /local-idp), jwks_uri, RS256. No authorization or token endpoint: sign-in is POST /local-idp/. 404 when IDP=cognito.',
    auth: 'none',
    errors: [404],
    response: openIdConfigurationSchema,
    handler: ({ ctx }) => openIdConfiguration(localIdpForDocs(ctx).issuer),
  }),
  route({
    method: 'get',
    path: '/.well-known/jwks.json',
    summary: 'RS256 public keys of the built-in identity provider (JWKS)',
    description: '404 when IDP=cognito (the user pool publishes its own keys).',
    auth: 'none',
    errors: [404],
    response: z.object({ keys: z.array(z.record(z.string(), z.unknown())) }),
    handler: ({ ctx }) => localIdpForDocs(ctx).keys.jwks(),
  }),
], { tag: 'local-idp', root: true });
