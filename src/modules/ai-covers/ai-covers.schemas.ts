import { z } from 'zod';

export const PROMPT_MAX = 1000;
export const STYLE_MAX = 40;

export const generateBody = z.object({
  prompt: z.string().max(PROMPT_MAX * 4).describe(`what the cover shows; plain text, 3 to ${PROMPT_MAX} characters once markup is removed`),
  style: z.string().max(STYLE_MAX * 4).nullable().optional().describe(`a short style hint (e.g. "watercolor", "photo"); plain text, up to ${STYLE_MAX} characters`),
});

export const generateAnswer = z.object({ data: z.object({ url: z.string() }) });
