import { z } from 'zod';
import { defineRoutes, route } from '../../http/define-routes';
import { resendEmailVerification, verifyToken } from './verification.service';

const RESEND_MESSAGE = 'If an account with that address exists and is not yet verified, a new verification link has been sent.';

export default defineRoutes(
  '/idp',
  [
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
        const outcome = raw === undefined || raw === '' ? 'invalid' : token ? await verifyToken(ctx, token) : 'failed';
        res.redirect(302, `${ctx.config.SITE_URL}/?verification=${outcome}`);
      },
    }),
    route({
      method: 'post',
      path: '/resend-verification',
      summary: 'Send a new verification link to an unverified login address',
      description:
        'Always 200 with the same message whatever the address (no account enumeration). The address is matched case-insensitively; a mail goes out only when the account exists and is unverified, and the new link replaces the old one.',
      auth: 'none',
      limiters: ['verificationResend'],
      body: z.object({ email: z.string().max(320) }),
      response: z.object({ message: z.string() }),
      handler: async ({ ctx, body }) => {
        await resendEmailVerification(ctx, body.email);
        return { message: RESEND_MESSAGE };
      },
    }),
  ],
  { tag: 'idp' },
);
