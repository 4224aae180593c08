import { z } from 'zod';
import { defineRoutes, route } from '../../http/define-routes';
import { firstValue } from '../../http/schema-helpers';
import type { NotificationCatalog } from '../notifications';
import * as service from './unsubscribe.service';

const token = z.string().max(1024).describe('the signed token of an unsubscribe link');
const tokenBody = z.object({ token });
const stateResponse = z.object({
  data: z.object({ email_hint: z.string(), category: z.string().describe('a notification type, or `all`'), subscribed: z.boolean() }),
});
const TOKEN_DOC = 'A token the service did not sign answers 400 `Invalid unsubscribe token`.';

/**
 * Links in mails act without sign-in: the signed token names the user and the category (a type
 * of `types`, or all of them).
 */
export function unsubscribeRoutes(types: NotificationCatalog) {
  return defineRoutes(
    '/unsubscribe',
    [
      route({
        method: 'get',
        path: '/preview',
        summary: 'What an unsubscribe link would change',
        description: `The masked address, the category the token names, and whether it is subscribed now. ${TOKEN_DOC}`,
        auth: 'none',
        limiters: ['public'],
        query: z.object({ token: z.preprocess(firstValue, z.string().max(1024).optional()) }),
        response: stateResponse,
        handler: ({ ctx, query }) => service.preview(ctx, types, query.token),
      }),
      route({
        method: 'post',
        path: '/',
        summary: 'Unsubscribe',
        description: `Switches the email of the token's category (every type for \`all\`) off. Idempotent. ${TOKEN_DOC}`,
        auth: 'none',
        limiters: ['auth'],
        body: tokenBody,
        response: stateResponse,
        handler: ({ ctx, body }) => service.setSubscribed(ctx, types, body.token, false),
      }),
      route({
        method: 'post',
        path: '/resubscribe',
        summary: 'Undo an unsubscribe',
        description: `Switches the email of the token's category back on. Idempotent. ${TOKEN_DOC}`,
        auth: 'none',
        limiters: ['auth'],
        body: tokenBody,
        response: stateResponse,
        handler: ({ ctx, body }) => service.setSubscribed(ctx, types, body.token, true),
      }),
      route({
        method: 'post',
        path: '/request',
        summary: 'Mail an unsubscribe link',
        description: 'Always 200 whatever the address (nothing tells whether it has an account); when an account has it, a link that unsubscribes from all notification emails is mailed there.',
        auth: 'none',
        limiters: ['auth'],
        body: z.object({ email: z.email().max(320) }),
        response: z.object({ message: z.string() }),
        handler: ({ ctx, body }) => service.requestLink(ctx, body.email),
      }),
    ],
    { tag: 'unsubscribe' },
  );
}
