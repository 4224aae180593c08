import { z } from 'zod';
import { defineRoutes, route } from '../../http/define-routes';
import { resendEmailVerification } from './verification.service';

const RESEND_MESSAGE = 'If an account with that address exists and is not yet verified, a new verification link has been sent.';

export default defineRoutes(
  '/idp',
  [
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
