import { z } from 'zod';
import { defineRoutes, route } from '../../http/define-routes';
import * as s from './idp.schemas';
import * as passwords from './idp.passwords';
import * as service from './idp.service';
import { verifyEmailLink } from './verify-email';

// Account and session operations of the identity provider (spec "Account and session").
// verify-email redeems a link the verification module issued (it keeps resend-verification); oauth
// lives in the social one.
export default defineRoutes('/idp', [
  route({
    method: 'post',
    path: '/signup',
    summary: 'Create an account (confirmed at once with the local provider); mails a verification link',
    description:
      'Name is optional and never derived from the email. ambassadorInviteToken grants the ambassador role (400 when unknown, used or for another address). Adaptive CAPTCHA applies.',
    auth: 'none',
    limiters: ['auth'],
    flag: 'features.user_registration',
    body: s.signUpBody,
    status: 201,
    errors: [409],
    response: s.message.extend({ userConfirmed: z.boolean(), user: s.sessionUser }),
    handler: ({ ctx, req, body }) => service.signUp(ctx, req, body),
  }),
  route({
    method: 'post',
    path: '/confirm',
    summary: 'Confirm a sign-up with the emailed code (only when sign-up answered userConfirmed false)',
    auth: 'none',
    limiters: ['auth'],
    body: s.confirmBody,
    response: s.message,
    handler: ({ ctx, body }) => service.confirmSignUp(ctx, body.email, body.code),
  }),
  route({
    method: 'post',
    path: '/signin',
    summary: 'Sign in with email and password: session cookies, or a further challenge without cookies',
    description:
      'Token strings are never in the body: the three httpOnly cookies (access_token and id_token 1 hour, refresh_token 90 days) carry the session. Wrong email or password: 401. Adaptive CAPTCHA applies (429 requiresCaptcha, 403 captchaFailed). Accounts that are not active answer 403.',
    auth: 'none',
    limiters: ['auth'],
    errors: [401, 403],
    body: s.signInBody,
    response: s.signInAnswer,
    handler: ({ ctx, req, res, body }) => service.signIn(ctx, req, res, body),
  }),
  route({
    method: 'post',
    path: '/challenge',
    summary: 'Answer a sign-in challenge (NEW_PASSWORD_REQUIRED) with the session it returned and a new password',
    auth: 'none',
    limiters: ['auth'],
    errors: [401],
    body: s.challengeBody,
    response: s.signInAnswer,
    handler: ({ ctx, res, body }) => service.respondToChallenge(ctx, res, body),
  }),
  route({
    method: 'post',
    path: '/refresh',
    summary: 'New access and ID token cookies from the refresh_token cookie (a token in the body is ignored)',
    description:
      '401 `Session expired, please sign in again` clears the cookies; 503 `Auth service temporarily unavailable, please retry` keeps them. Cross-site requests with cookies answer 403.',
    auth: 'none',
    errors: [401, 403, 503],
    response: z.object({ message: z.string(), expiresIn: z.number().int() }),
    handler: ({ ctx, req, res }) => service.refreshSession(ctx, req, res),
  }),
  route({
    method: 'post',
    path: '/logout',
    summary: 'Sign out: always 200, global sign-out where possible, cookies cleared; API keys stay valid',
    description:
      'Reads the id_token (or, failing that, the refresh_token) cookie to end every session of the account. A cross-site request (Origin / Sec-Fetch-Site not the site) still answers 200 and clears the cookies, but ends no session.',
    auth: 'none',
    response: s.message,
    handler: ({ ctx, req, res }) => service.logout(ctx, req, res),
  }),
  route({
    method: 'get',
    path: '/me',
    summary: 'The signed-in user (cookie session only); renews the session from the refresh cookie when needed',
    description:
      'Bearer credentials answer 401 `Not authenticated` (use /me/capabilities). A failed renewal answers 401 `Session expired, please sign in again`; every 401 clears the cookies. While staff view the account on the user\'s behalf the user carries is_impersonating and impersonated_by.',
    auth: 'none',
    errors: [401, 503],
    response: s.meAnswer,
    handler: ({ ctx, req, res }) => service.currentUser(ctx, req, res),
  }),
  route({
    method: 'post',
    path: '/forgot-password',
    summary: 'Mail a 6-digit reset code (one hour, single use); 200 whether or not the account exists',
    auth: 'none',
    limiters: ['auth'],
    body: s.forgotBody,
    response: s.message,
    handler: ({ ctx, body }) => passwords.forgotPassword(ctx, body.email),
  }),
  route({
    method: 'post',
    path: '/reset-password',
    summary: 'Set a new password with the emailed code; signs the account out everywhere',
    auth: 'none',
    limiters: ['auth'],
    body: s.resetBody,
    response: s.message,
    handler: ({ ctx, body }) => passwords.resetPassword(ctx, body),
  }),
  route({
    method: 'post',
    path: '/change-password',
    summary: 'Change the password (cookie session only; social accounts have no password)',
    description:
      'A bearer header (ID token or API key) answers 401 `Not authenticated`. Wrong current password: 400 INCORRECT_PASSWORD; a social account: 400 NO_PASSWORD; staff viewing as the user: 403.',
    auth: 'cookie',
    limiters: ['auth'],
    errors: [403],
    body: s.changeBody,
    response: s.message,
    handler: ({ ctx, req, actor, body }) => passwords.changePassword(ctx, req, actor, body),
  }),
  route({
    method: 'get',
    path: '/verify-email',
    skipGlobalLimiter: true,
    summary: 'Follow an emailed verification link (never JSON)',
    description:
      'Redirects (302) to `{site_url}/?verification=<outcome>`: success, invalid (no token), failed (unknown, used or expired link), contact_taken (the private contact address is already verified by another account) or error. Verifies the login address or the private contact address, whichever the link was sent for.',
    auth: 'none',
    limiters: ['public'],
    status: 302,
    produces: 'text/plain',
    // Deliberately no zod query schema: a bad or missing token is an outcome, not a 400.
    handler: async ({ req, res, ctx }) => {
      const raw = req.query.token;
      const token = typeof raw === 'string' && raw.length > 0 && raw.length <= 512 ? raw : undefined;
      const outcome = raw === undefined || raw === '' ? 'invalid' : token ? await verifyEmailLink(ctx, token) : 'failed';
      res.redirect(302, `${ctx.config.SITE_URL}/?verification=${outcome}`);
    },
  }),
], { tag: 'identity', idempotent: false });
