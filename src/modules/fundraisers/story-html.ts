import sanitizeHtml from 'sanitize-html';

/**
 * The one sanitiser for campaign stories (and their translations). Explicit allow-list; links may
 * only use https, http or mailto (never protocol-relative or javascript:); every link opens with
 * rel="noopener noreferrer" and target="_blank"; images only from http(s).
 */
const OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: ['p', 'br', 'strong', 'b', 'em', 'i', 'u', 's', 'a', 'ul', 'ol', 'li', 'blockquote', 'h2', 'h3', 'img'],
  allowedAttributes: {
    a: ['href', 'title', 'rel', 'target'],
    img: ['src', 'alt', 'width', 'height'],
  },
  allowedSchemes: ['https', 'http', 'mailto'],
  allowedSchemesByTag: { img: ['https', 'http'] },
  allowedSchemesAppliedToAttributes: ['href', 'src'],
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
  transformTags: {
    a: (tagName, attribs) => ({
      tagName,
      attribs: { ...attribs, rel: 'noopener noreferrer', target: '_blank' },
    }),
  },
  exclusiveFilter: (frame) => frame.tag === 'img' && !frame.attribs.src,
};

export function sanitizeStory(html: string): string {
  return sanitizeHtml(html, OPTIONS).trim();
}

// ---------------------------------------------------------------------------------------------
// Plain text (comments): no markup at all, not even once an entity is decoded.

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
