import { ImageGenError, type ImageGenerator } from './port';

// Image models take tens of seconds; beyond this the caller gets 502 rather than a hung request.
const TIMEOUT_MS = 90_000;
/** A generated image larger than this is refused (a 1792x1024 PNG is ~3 MB; base64 adds a third). */
const MAX_IMAGE_BYTES = 20 * 1024 * 1024;

/**
 * An OpenAI-compatible images API: `POST {url}/images/generations { prompt, n: 1, size,
 * response_format: 'b64_json' }` with `Authorization: Bearer <key>` → `{ data: [{ b64_json }] }`.
 * The bytes come inline: a URL answer is refused, so the service never fetches a remote address.
 */
export class OpenAiImageGenerator implements ImageGenerator {
  readonly name = 'openai';

  constructor(private readonly opts: { url: string; apiKey?: string; model?: string }) {}

  async generate(prompt: string, opts: { size: string }): Promise<Buffer> {
    const endpoint = `${this.opts.url.replace(/\/+$/, '')}/images/generations`;
    let res: Response;
    try {
      res = await fetch(endpoint, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json',
          ...(this.opts.apiKey ? { Authorization: `Bearer ${this.opts.apiKey}` } : {}),
        },
        body: JSON.stringify({ prompt, n: 1, size: opts.size, response_format: 'b64_json', ...(this.opts.model ? { model: this.opts.model } : {}) }),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (err) {
      throw new ImageGenError(`image generation request failed: ${(err as Error).message}`);
    }
    if (!res.ok) throw new ImageGenError(`image generation service answered ${res.status}`);
    const body = (await res.json().catch(() => null)) as { data?: Array<{ b64_json?: unknown }> } | null;
    const b64 = body?.data?.[0]?.b64_json;
    if (typeof b64 !== 'string' || !b64) throw new ImageGenError('image generation service answered without b64_json');
    if (b64.length > (MAX_IMAGE_BYTES * 4) / 3) throw new ImageGenError('generated image is too large');
    return Buffer.from(b64, 'base64');
  }
}
