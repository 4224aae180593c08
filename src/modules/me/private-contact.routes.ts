import { z } from 'zod';
import { defineRoutes, route } from '../../http/define-routes';
import * as service from './private-contact.service';

const answer = z.object({
  message: z.string(),
  sent: z.boolean().describe('A verification mail was queued'),
  already_verified: z.boolean().describe('The address was already verified; nothing was sent'),
  data: z.object({ private_contact_email: z.string(), private_contact_verified: z.boolean() }),
});

export default defineRoutes(
  '/users/me/private-contact',
  [
    route({
      method: 'put',
      path: '/',
      summary: 'Set the private contact email (stored unverified; a verification link is mailed)',
      description:
        'The verified private contact address is required before publishing. Setting the address that is already verified changes nothing and sends nothing. Shares the verification-resend bucket (5 per minute) with its resend and with /idp/resend-verification.',
      auth: 'required',
      limiters: ['verificationResend'],
      body: z.object({ email: z.string().trim().max(254).pipe(z.email({ message: 'must be a valid email address' })) }),
      response: answer,
      handler: ({ ctx, actor, body }) => service.setAndVerify(ctx, actor.userId, body.email),
    }),
    route({
      method: 'post',
      path: '/resend',
      summary: 'Resend the private contact verification link',
      description:
        'Answers whether a mail was sent (`sent`) or the address was already verified (`already_verified`). 400 `PRIVATE_CONTACT_MISSING` when no address is set.',
      auth: 'required',
      limiters: ['verificationResend'],
      response: answer,
      handler: ({ ctx, actor }) => service.resend(ctx, actor.userId),
    }),
  ],
  { tag: 'users' },
);
