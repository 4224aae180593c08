import { z } from 'zod';

export const MESSAGE_MAX = 500;

export const endorseBody = z.object({
  message: z.string().max(10_000).nullable().optional().describe(`plain text (markup removed), at most ${MESSAGE_MAX} characters`),
});
export const requestBody = z.object({ email: z.email().max(254).describe('who is asked to endorse the campaign') });

export const endorsement = z.object({
  fundraiser_id: z.string().uuid(),
  endorser: z.object({ id: z.string().uuid(), name: z.string().nullable(), avatar: z.string().nullable(), profile_slug: z.string().nullable() }),
  message: z.string().nullable(),
  created_at: z.string(),
}).meta({ id: 'Endorsement' });
export const endorsementEnvelope = z.object({ data: endorsement });
export const requestEnvelope = z.object({
  data: z.object({ id: z.string().uuid(), fundraiser_id: z.string().uuid(), email: z.string(), created_at: z.string() }),
});
