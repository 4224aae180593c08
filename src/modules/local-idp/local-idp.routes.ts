import type { Request, Response } from 'express';
import { z } from 'zod';
import type { AppContext } from '../../context';
import { defineRoutes, route } from '../../http/define-routes';
import { ApiError } from '../../http/errors';
import { normalizeEmail } from '../../infra/email';
import { IdpError, LocalIdentityProvider, LOCAL_CLIENT_ID, type TokenSet } from '../../integrations/idp';
import { AMZ_JSON, COGNITO_TARGET_PREFIX as TARGET_PREFIX, sendCognitoFault } from '../../integrations/idp/cognito-faults';
import { liveOwner } from '../auth';
import { assertNotThrottled, globalSignOut, recordSignInFailure, resetSignInFailures, SignInThrottled, signUp } from '../idp';
import { openIdConfiguration, openIdConfigurationSchema } from './openid-configuration';

// Cognito's JSON protocol for native apps (decisions.md "Local identity provider").

class CognitoFault extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

const KIND_TO_TYPE: Record<string, string> = {
  not_authorized: 'NotAuthorizedException',
  user_disabled: 'NotAuthorizedException',
  user_exists: 'UsernameExistsException',
  invalid_password: 'InvalidPasswordException',
  code_mismatch: 'CodeMismatchException',
  code_expired: 'ExpiredCodeException',
  not_confirmed: 'UserNotConfirmedException',
  password_reset_required: 'PasswordResetRequiredException',
  no_password: 'NotAuthorizedException',
};

/** The Cognito fault for an error, or null when it is not the caller's doing. */
function toFault(err: unknown): CognitoFault | null {
  if (err instanceof CognitoFault) return err;
  if (err instanceof IdpError) return new CognitoFault(KIND_TO_TYPE[err.kind] ?? 'InternalErrorException', err.message, err.kind in KIND_TO_TYPE ? 400 : 500);
  if (err instanceof ApiError) {
    if (err.status === 409) return new CognitoFault('UsernameExistsException', 'An account with the given email already exists.');
    if (err.error === 'Password does not meet requirements') return new CognitoFault('InvalidPasswordException', err.message);
    if (err.status === 403 && err.extra.feature_key) return new CognitoFault('NotAuthorizedException', 'Sign-up is currently disabled.');
    if (err.status === 403) return new CognitoFault('NotAuthorizedException', err.message);
    if (err.status === 429) return new CognitoFault('TooManyRequestsException', err.message);
    if (err.status < 500) return new CognitoFault('InvalidParameterException', err.message);
    return null;
  }
  const code = (err as { code?: unknown } | null)?.code;
  // Postgres refusing a value (NUL byte, bad encoding, malformed uuid) is the caller's input.
  if (code === '22021' || code === '22P05' || code === '22P02') return new CognitoFault('InvalidParameterException', 'A value has the wrong format');
  return null;
}

const str = (v: unknown, name: string): string => {
  if (typeof v !== 'string' || v === '') throw new CognitoFault('InvalidParameterException', `Missing required parameter ${name}`);
  return v;
};

function checkClient(body: Record<string, unknown>) {
  if (str(body.ClientId, 'ClientId') !== LOCAL_CLIENT_ID) {
    throw new CognitoFault('ResourceNotFoundException', 'User pool client does not exist.');
  }
}

const authResult = (t: TokenSet) => ({
  AuthenticationResult: {
    IdToken: t.idToken,
    AccessToken: t.accessToken,
    ...(t.refreshToken ? { RefreshToken: t.refreshToken } : {}),
    ExpiresIn: t.expiresIn,
    TokenType: 'Bearer',
  },
  ChallengeParameters: {},
});

function localIdp(ctx: AppContext): LocalIdentityProvider {
  if (!(ctx.idp instanceof LocalIdentityProvider)) {
    throw new CognitoFault('ResourceNotFoundException', 'The built-in identity provider is off (IDP=cognito)');
  }
  return ctx.idp;
}

type Op = (ctx: AppContext, body: Record<string, unknown>, req: Request) => Promise<unknown>;

const OPERATIONS: Record<string, Op> = {
  async InitiateAuth(ctx, body) {
    const idp = localIdp(ctx);
    checkClient(body);
    const params = (body.AuthParameters ?? {}) as Record<string, unknown>;
    if (body.AuthFlow === 'USER_PASSWORD_AUTH') {
      const email = normalizeEmail(str(params.USERNAME, 'USERNAME'));
      const password = str(params.PASSWORD, 'PASSWORD');
      // The per-account throttle of POST /idp/signin, in Cognito's words (decisions.md Part 3).
      try {
        await assertNotThrottled(ctx.db, email);
      } catch (err) {
        if (err instanceof SignInThrottled) throw new CognitoFault('NotAuthorizedException', 'Password attempts exceeded');
        throw err;
      }
      let r;
      try {
        r = await idp.initiateAuth(email, password);
      } catch (err) {
        if (err instanceof IdpError && err.kind === 'not_authorized') await recordSignInFailure(ctx.db, email);
        throw err;
      }
      await resetSignInFailures(ctx.db, email);
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

function isPasswordOperation(req: Request): boolean {
  const op = String(req.headers['x-amz-target'] ?? '').slice(TARGET_PREFIX.length);
  if (op === 'InitiateAuth') return (req.body as { AuthFlow?: unknown } | undefined)?.AuthFlow === 'USER_PASSWORD_AUTH';
  return op === 'SignUp' || op === 'ConfirmSignUp' || op === 'RespondToAuthChallenge';
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
  Password: amzString.describe('SignUp'),
  UserAttributes: z
    .array(z.object({ Name: z.string(), Value: z.string() }))
    .optional()
    .describe('SignUp: email and optional name (never derived from the email)'),
  ConfirmationCode: amzString.describe('ConfirmSignUp'),
  ChallengeName: z.literal('NEW_PASSWORD_REQUIRED').optional().describe('RespondToAuthChallenge'),
  Session: amzString.describe('RespondToAuthChallenge: the Session of the challenge'),
  ChallengeResponses: z.object({ USERNAME: amzString, NEW_PASSWORD: amzString }).optional().describe('RespondToAuthChallenge'),
  AccessToken: amzString.describe('GlobalSignOut: the access token'),
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
  z.object({}).describe('ConfirmSignUp, GlobalSignOut'),
]);

export default defineRoutes('/local-idp', [
  route({
    method: 'post',
    path: '/',
    summary: "Built-in identity provider speaking Cognito's JSON protocol (X-Amz-Target AWSCognitoIdentityProviderService.<Operation>)",
    description: `Headers: X-Amz-Target: AWSCognitoIdentityProviderService.<Operation> and Content-Type: application/x-amz-json-1.1. Operations: InitiateAuth (USER_PASSWORD_AUTH, REFRESH_TOKEN_AUTH), RespondToAuthChallenge (NEW_PASSWORD_REQUIRED), SignUp, ConfirmSignUp, GlobalSignOut. ClientId is "${LOCAL_CLIENT_ID}". Failures answer 400 (500 for InternalErrorException) with { __type, message } in application/x-amz-json-1.1 and an x-amzn-ErrorType header: NotAuthorizedException, UsernameExistsException, InvalidPasswordException, CodeMismatchException, ExpiredCodeException, UserNotConfirmedException, InvalidParameterException, ResourceNotFoundException, UnknownOperationException, TooManyRequestsException (the auth rate limit on password and code operations), InternalErrorException. GlobalSignOut with an access token already signed out answers NotAuthorizedException.`,
    auth: 'none',
    // Password guesses and code guesses count against the auth limiter; token refreshes do not.
    limiters: [{ name: 'auth', when: isPasswordOperation }],
    produces: AMZ_JSON,
    consumes: { mediaType: AMZ_JSON, schema: requestBody },
    response: responseBody,
    handler: ({ ctx, req, res }) => dispatch(ctx, req, res),
  }),
  route({
    method: 'get',
    path: '/.well-known/openid-configuration',
    summary: 'OpenID Connect discovery document of the built-in identity provider',
    description: 'issuer (PUBLIC_URL + /local-idp), jwks_uri, RS256. No authorization or token endpoint: sign-in is POST /local-idp/. 404 when IDP=cognito.',
    auth: 'none',
    response: openIdConfigurationSchema,
    handler: ({ ctx }) => openIdConfiguration(localIdpForDocs(ctx).issuer),
  }),
  route({
    method: 'get',
    path: '/.well-known/jwks.json',
    summary: 'RS256 public keys of the built-in identity provider (JWKS)',
    auth: 'none',
    response: z.object({ keys: z.array(z.record(z.string(), z.unknown())) }),
    handler: ({ ctx }) => localIdpForDocs(ctx).keys.jwks(),
  }),
], { tag: 'local-idp', root: true });
