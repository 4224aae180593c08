import { TranslatorError, type Locale, type Translator } from './port';

const TIMEOUT_MS = 15_000;

/** A LibreTranslate-compatible server: `POST {url}/translate { q, source, target, format, api_key }` → `{ translatedText }`. */
export class LibreTranslateTranslator implements Translator {
  readonly name = 'libretranslate';

  constructor(private readonly opts: { url: string; apiKey?: string }) {}

  async translate(text: string, source: Locale, target: Locale): Promise<string> {
    if (!text.trim()) return text;
    const endpoint = `${this.opts.url.replace(/\/+$/, '')}/translate`;
    let res: Response;
    try {
      res = await fetch(endpoint, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        body: JSON.stringify({ q: text, source, target, format: 'text', ...(this.opts.apiKey ? { api_key: this.opts.apiKey } : {}) }),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (err) {
      throw new TranslatorError(`translation request failed: ${(err as Error).message}`);
    }
    if (!res.ok) throw new TranslatorError(`translation service answered ${res.status}`);
    const body = (await res.json().catch(() => null)) as { translatedText?: unknown } | null;
    if (!body || typeof body.translatedText !== 'string') throw new TranslatorError('translation service answered without translatedText');
    return body.translatedText;
  }
}
