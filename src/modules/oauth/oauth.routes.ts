import { z } from 'zod';
import { defineRoutes, route } from '../../http/define-routes';
import { ApiError } from '../../http/errors';
import { requestLocale } from '../../integrations/mail';
import { FLOW_COOKIE, startFlow, takeFlow } from './flow-store';
import {
  clientFor,
  OAUTH_PROVIDERS,
  providerSettings,
} from '../../integrations/oauth/providers';
import { MAX_REDIRECT_LENGTH, sanitizeRedirect } from '../../integrations/oauth/redirect';
import { issueSessionForUser } from '../idp';
import { authorizationRequest, completeCallback } from './oauth.service';

// A callback must always end in a redirect to the site, never in a JSON error: malformed values
// (repeated parameters, arrays) are read as absent.
const optionalText = z.preprocess(
  (v) => (typeof v === 'string' && v.length <= 4096 ? v : undefined),
  z.string().max(4096).optional(),
);

const FAILURES =
  'Failures redirect to `{site_url}/auth?error=<reason>`: `state_mismatch` (flow cookie missing, another browser, ' +
  'older than 10 minutes, or a newer flow was started), `missing_code`, the provider\'s own `error` code passed ' +
  'through (or `oauth_error` when it is absent or malformed, and for unexpected failures such as a refused ' +
  'session), `token_exchange_failed` (token endpoint or discovery failed), `invalid_token` (the ID token fails ' +
  'validation or carries no email), `unverified_account_exists` (an account with the address exists but the ' +
  "account's or the provider's address is unverified, so the link cannot be proven). The flow cookie is cleared " +
  'in every outcome.';

export default defineRoutes(
  '/idp/oauth',
  [
    // Declared before '/:provider' so that 'callback' is never read as a provider name.
    route({
      method: 'get',
      path: '/callback',
      summary: 'Social sign-in callback (OpenID Connect authorization code)',
      description:
        'Checks `state` against the flow cookie set by `GET /idp/oauth/{provider}`, exchanges the code (PKCE), ' +
        'validates the ID token (signature, issuer, audience, nonce, expiry) and signs in: the account linked to ' +
        'the provider identity; else an account with the same address (case-insensitive), linked when both ' +
        'addresses are verified; else a new account without password (email_verified and name from the provider). ' +
        'Sets the three session cookies and redirects (302) to `{site_url}<redirect path>`. ' +
        FAILURES,
      auth: 'none',
      query: z.object({ code: optionalText, state: optionalText, error: optionalText, iss: optionalText }),
      status: 302,
      handler: async ({ req, res, ctx, query }) => {
        const site = ctx.config.SITE_URL;
        const flow = await takeFlow(ctx, req.cookies?.[FLOW_COOKIE], res);
        const fail = (reason: string) => res.redirect(302, `${site}/auth?error=${encodeURIComponent(reason)}`);
        let outcome;
        try {
          outcome = await completeCallback(ctx, flow, query);
        } catch (err) {
          // The browser is mid-navigation: it gets the site's error page, never a JSON 500.
          ctx.log.error({ err }, 'social sign-in callback failed unexpectedly');
          return fail('oauth_error');
        }
        if (!outcome.ok) return fail(outcome.reason);
        try {
          await issueSessionForUser(ctx, res, outcome.userId);
        } catch (err) {
          // e.g. a suspended or banned account (403 from the session service).
          ctx.log.warn({ err: (err as Error).message, userId: outcome.userId }, 'social sign-in: no session issued');
          return fail('oauth_error');
        }
        res.redirect(302, `${site}${outcome.redirect}`);
      },
    }),
    route({
      method: 'get',
      path: '/:provider',
      summary: 'Start social sign-in with an OpenID Connect provider',
      description:
        'Redirects (302) to the provider\'s hosted sign-in (authorization code with PKCE S256 and a nonce) and sets ' +
        'the short-lived (10 minutes) httpOnly, SameSite=Lax cookie `oauth_flow` that the callback needs. ' +
        '`redirect` (at most 2048 characters, default `/`) must start with a single `/`; a full URL on the site is ' +
        'reduced to its path and query; anything else (another host, `//host`, `/\\host`) becomes `/`. ' +
        'A provider whose issuer, client id or client secret is not configured answers 503, as does one whose ' +
        'discovery document cannot be fetched.',
      auth: 'none',
      params: z.object({ provider: z.enum(OAUTH_PROVIDERS) }),
      query: z.object({ redirect: z.string().max(MAX_REDIRECT_LENGTH).optional() }),
      status: 302,
      errors: [503],
      handler: async ({ req, res, ctx, params, query }) => {
        const settings = providerSettings(ctx.config, params.provider);
        if (!settings) {
          throw new ApiError(503, 'Provider not configured', `Sign-in with ${params.provider} is not available`, {
            provider: params.provider,
          });
        }
        let client;
        try {
          client = await clientFor(ctx.config, settings);
        } catch (err) {
          ctx.log.warn({ err: (err as Error).message, provider: params.provider }, 'OAuth provider discovery failed');
          throw new ApiError(503, 'Provider unavailable', `Sign-in with ${params.provider} is temporarily unavailable`, {
            provider: params.provider,
          });
        }
        const auth = authorizationRequest(client, ctx);
        await startFlow(ctx, res, {
          provider: params.provider,
          state: auth.state,
          nonce: auth.nonce,
          codeVerifier: auth.codeVerifier,
          redirect: sanitizeRedirect(query.redirect ?? '/', ctx.config.SITE_URL),
          locale: requestLocale(req),
        });
        res.redirect(302, auth.url);
      },
    }),
  ],
  { tag: 'idp' },
);
