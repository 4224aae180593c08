import { randomUUID } from 'node:crypto';
import sharp from 'sharp';
import type { z } from 'zod';
import type { AppContext } from '../../context';
import type { Actor } from '../../http/actor';
import { checkAiLimit } from '../../http/ai-limit';
import { ApiError } from '../../http/errors';
import { createImageGenerator, ImageGenError } from '../../integrations/image-gen';
import { plainText } from '../../infra/plain-text';
import { PROMPT_MAX, STYLE_MAX, type generateBody } from './ai-covers.schemas';

/** Landscape, as close to the campaign cover's shape as OpenAI-compatible models offer. */
export const COVER_SIZE = '1536x1024';

function invalid(path: string, message: string): ApiError {
  return new ApiError(400, 'Validation failed', `${path}: ${message}`, { details: [{ path, message }] });
}

/** The prompt as plain text (markup removed, whitespace collapsed), bounded; else 400. */
function cleanPrompt(body: z.infer<typeof generateBody>): string {
  const prompt = plainText(body.prompt)?.replace(/\s+/g, ' ').trim() ?? null;
  if (prompt === null) throw invalid('body.prompt', 'too many levels of HTML entity encoding');
  if (prompt.length < 3) throw invalid('body.prompt', 'must have at least 3 characters of text');
  if (prompt.length > PROMPT_MAX) throw invalid('body.prompt', `must have at most ${PROMPT_MAX} characters`);
  if (body.style === null || body.style === undefined) return prompt;
  const style = plainText(body.style)?.replace(/\s+/g, ' ').trim() ?? null;
  if (style === null) throw invalid('body.style', 'too many levels of HTML entity encoding');
  if (style.length > STYLE_MAX) throw invalid('body.style', `must have at most ${STYLE_MAX} characters`);
  return style ? `${prompt}\n\nStyle: ${style}` : prompt;
}

/**
 * Generates a cover for the caller: the AI limit (10 a minute), one image from the configured
 * OpenAI-compatible service, re-encoded as a PNG without metadata (so only image bytes are ever
 * stored), stored under ai-covers/<user>/ and answered as the URL to put in `cover_image`.
 */
export async function generateCover(ctx: AppContext, actor: Actor, body: z.infer<typeof generateBody>): Promise<{ url: string }> {
  const generator = createImageGenerator(ctx.config);
  if (!generator) throw new ApiError(503, 'Image generation is not configured', 'Image generation is not configured');
  const prompt = cleanPrompt(body);
  await checkAiLimit(ctx, actor.userId);
  let png: Buffer;
  try {
    const raw = await generator.generate(prompt, { size: COVER_SIZE });
    png = await sharp(raw, { limitInputPixels: 50_000_000 }).png().toBuffer();
  } catch (err) {
    ctx.log.warn({ err: (err as Error).message }, 'AI cover generation failed');
    const why = err instanceof ImageGenError ? 'The image service did not answer with an image' : 'The image service answered something that is not an image';
    throw new ApiError(502, 'Image generation failed', `${why}; please try again`);
  }
  const key = `ai-covers/${actor.userId}/${randomUUID()}.png`;
  await ctx.storage.put(key, png, { contentType: 'image/png' });
  return { url: ctx.storage.url(key) };
}
