import { withBareAiLimit } from '../../http/ai-limit';
import { defineRoutes, route } from '../../http/define-routes';
import { DAY, defineLimiter, fixed, HOUR } from '../../http/rate-limits';
import { generateAnswer, generateBody, PROMPT_MAX } from './ai-covers.schemas';
import { COVER_SIZE, generateCover } from './ai-covers.service';

/** Generated images per user: failed generations are given back. */
export const aiImageHourlyLimiter = defineLimiter('aiImageHourly', {
  windowMs: HOUR,
  limit: fixed(10),
  key: 'user',
  message: 'You have generated several images in a short time. Please try again later.',
  successesOnly: true,
});
export const aiImageDailyLimiter = defineLimiter('aiImageDaily', {
  windowMs: DAY,
  limit: fixed(30),
  key: 'user',
  message: "You have reached today's limit for AI image generation. Please try again tomorrow.",
  successesOnly: true,
});

export default defineRoutes(
  '',
  [
    route({
      method: 'post',
      path: '/images/generate',
      summary: 'Generate a campaign cover with AI',
      description:
        `Draws one ${COVER_SIZE} PNG from \`prompt\` (plain text, 3 to ${PROMPT_MAX} characters) and optional \`style\` through the configured ` +
        'OpenAI-compatible image service, stores it and answers its URL (put it in the campaign\'s `cover_image`). ' +
        '503 `Image generation is not configured` without IMAGE_GEN_URL; 502 when the image service fails. ' +
        'Limits per account: 10 generated images an hour and 30 a day (RateLimit headers; only images actually generated count), ' +
        'and the AI endpoints\' limit of 10 attempts a minute, failed ones included, answered as a bare 429 without RateLimit headers.',
      auth: 'required',
      limiters: [aiImageHourlyLimiter, aiImageDailyLimiter],
      body: generateBody,
      status: 201,
      response: generateAnswer,
      errors: [429, 502, 503],
      handler: async ({ res, ctx, actor, body }) => ({ data: await withBareAiLimit(res, () => generateCover(ctx, actor, body)) }),
    }),
  ],
  { tag: 'media' },
);
