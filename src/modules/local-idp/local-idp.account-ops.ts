import { z } from 'zod';
import type { AppContext } from '../../context';
import type { Actor } from '../../http/actor';
import { ApiError } from '../../http/errors';
import { normalizeEmail } from '../../infra/email';
import { LOCAL_CLIENT_ID } from '../../integrations/idp';
import { actorFromClaims, changePassword, findProfile, forgotPassword, resetPassword } from '../idp';
import { resendEmailVerification } from '../verification';
import { checkClient, CognitoFault, localIdp, str, type Op } from './local-idp.protocol';

// Password reset, password change, resending the confirmation and reading the account, as
// Cognito's operations of those names, on the identity module's own services (the same rules,
// mails and codes as /idp/*).

/** Cognito's masked delivery address: first letter of the local part and of the domain. */
function codeDelivery(email: string) {
  const [local = '', domain = ''] = email.split('@');
  return { CodeDeliveryDetails: { Destination: `${local.slice(0, 1)}***@${domain.slice(0, 1)}***`, DeliveryMedium: 'EMAIL', AttributeName: 'email' } };
}

const username = (body: Record<string, unknown>) => {
  const email = normalizeEmail(str(body.Username, 'Username'));
  if (!z.email().safeParse(email).success) throw new CognitoFault('InvalidParameterException', 'Username must be the account\'s email address.');
  return email;
};

/** The live account of a Cognito access token of this pool (signed out, suspended or unknown: NotAuthorized). */
async function accessTokenActor(ctx: AppContext, token: unknown): Promise<Actor> {
  const claims = await localIdp(ctx).verifyOwnToken(str(token, 'AccessToken'));
  if (!claims || claims.token_use !== 'access' || claims.client_id !== LOCAL_CLIENT_ID || !claims.sub) {
    throw new CognitoFault('NotAuthorizedException', 'Invalid Access Token');
  }
  try {
    return await actorFromClaims(ctx, claims, 'id_token');
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) throw new CognitoFault('NotAuthorizedException', 'Access Token has been revoked');
    throw err;
  }
}

export const ACCOUNT_OPERATIONS: Record<string, Op> = {
  /** Mails a 6-digit reset code (one hour, single use); the same answer whether or not the account exists. */
  async ForgotPassword(ctx, body) {
    localIdp(ctx);
    checkClient(body);
    const email = username(body);
    await forgotPassword(ctx, email);
    return codeDelivery(email);
  },
  async ConfirmForgotPassword(ctx, body) {
    localIdp(ctx);
    checkClient(body);
    await resetPassword(ctx, { email: username(body), code: str(body.ConfirmationCode, 'ConfirmationCode'), newPassword: str(body.Password, 'Password') });
    return {};
  },
  /** Accounts are confirmed at sign-up; what waits is the address: a new verification link goes out (unverified accounts only). */
  async ResendConfirmationCode(ctx, body) {
    localIdp(ctx);
    checkClient(body);
    const email = username(body);
    await resendEmailVerification(ctx, email);
    return codeDelivery(email);
  },
  async GetUser(ctx, body) {
    const actor = await accessTokenActor(ctx, body.AccessToken);
    const profile = await findProfile(ctx.db, actor.userId);
    const attrs = [
      { Name: 'sub', Value: actor.userId },
      { Name: 'email', Value: actor.email },
      { Name: 'email_verified', Value: String(actor.emailVerified) },
    ];
    if (profile?.name) attrs.push({ Name: 'name', Value: profile.name });
    return { Username: actor.email, UserAttributes: attrs };
  },
  async ChangePassword(ctx, body, req) {
    const actor = await accessTokenActor(ctx, body.AccessToken);
    await changePassword(ctx, req, actor, { currentPassword: str(body.PreviousPassword, 'PreviousPassword'), newPassword: str(body.ProposedPassword, 'ProposedPassword') });
    return {};
  },
};

/** Request fields of these operations, for the OpenAPI description. */
export const accountRequestFields = {
  ConfirmationCode: z.string().optional().describe('ConfirmSignUp, ConfirmForgotPassword: the mailed 6-digit code'),
  Password: z.string().optional().describe('SignUp; ConfirmForgotPassword: the new password'),
  PreviousPassword: z.string().optional().describe('ChangePassword'),
  ProposedPassword: z.string().optional().describe('ChangePassword'),
  AccessToken: z.string().optional().describe('GlobalSignOut, GetUser, ChangePassword: the access token'),
};

/** Answers of these operations, for the OpenAPI description. */
export const accountResponses = [
  z
    .object({ CodeDeliveryDetails: z.object({ Destination: z.string(), DeliveryMedium: z.literal('EMAIL'), AttributeName: z.literal('email') }) })
    .describe('ForgotPassword, ResendConfirmationCode'),
  z.object({ Username: z.string(), UserAttributes: z.array(z.object({ Name: z.string(), Value: z.string() })) }).describe('GetUser'),
] as const;
