import type { Config } from '../../config';
import { OpenAiImageGenerator } from './openai';
import type { ImageGenerator } from './port';

export { ImageGenError, type ImageGenerator } from './port';
export { OpenAiImageGenerator } from './openai';

/** The image generator for this process, or null when IMAGE_GEN_URL is unset (generation answers 503). */
export function createImageGenerator(config: Pick<Config, 'IMAGE_GEN_URL' | 'IMAGE_GEN_API_KEY'>): ImageGenerator | null {
  if (!config.IMAGE_GEN_URL) return null;
  return new OpenAiImageGenerator({ url: config.IMAGE_GEN_URL, apiKey: config.IMAGE_GEN_API_KEY });
}
