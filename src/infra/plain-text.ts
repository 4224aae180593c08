import sanitizeHtml from 'sanitize-html';

// Plain text (comments, names, messages): no markup at all, not even once an entity is decoded.
// Lives in infra because a dozen modules need it and none of them owns it.

const NO_MARKUP: sanitizeHtml.IOptions = { allowedTags: [], allowedAttributes: {}, disallowedTagsMode: 'discard' };
/** Each round peels one level of entity encoding; deeper nesting than this is not plain text. */
const MAX_ROUNDS = 8;
const TEXT_ESCAPES: Record<string, string> = { amp: '&', lt: '<', gt: '>' };

/** sanitize-html escapes exactly &, < and > in text; this reverses that and nothing else. */
const unescapeText = (s: string) => s.replace(/&(amp|lt|gt);/g, (_m, e: string) => TEXT_ESCAPES[e]!);

/**
 * Text as typed with every tag removed (script/style content too). Stripping before decoding
 * would let `&lt;img onerror=...&gt;` come out as a live tag, so strip and decode repeat until
 * nothing changes: the result decodes to itself and holds no markup however often a client
 * decodes it. Null when the input is nested too deep to settle (the caller answers 400).
 */
export function plainText(input: string): string | null {
  let text = input;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const next = unescapeText(sanitizeHtml(text, NO_MARKUP));
    if (next === text) return text.trim();
    text = next;
  }
  return null;
}
