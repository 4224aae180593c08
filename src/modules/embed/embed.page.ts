import { createHash } from 'node:crypto';
import { fill, type EmbedLocale } from './embed.labels';

export type Theme = 'light' | 'dark';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
/** Text for element content and double-quoted attribute values. */
const esc = (v: string): string => v.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/** The widget lists this many gifts (newest first); the stream adds newer ones on top. */
export const LATEST_GIFTS = 5;

/** What the page shows of a campaign: the public detail read's fields and its latest gifts. */
export interface EmbedCampaign {
  id: string;
  title: string;
  status: string;
  currency: string;
  cover_image: string | null;
  goal_amount_cents: number;
  total_raised_cents: number;
  donor_count: number;
  percentage_funded: number;
  donate_url: string;
  gifts: Array<{ id: string; amount_cents: number; currency: string; donor_name: string | null }>;
}

// Contrast is at least 4.5:1 for every text colour on its background in both themes (axe-core
// checks it in test/e2e/widget-browser.test.ts). No style attributes anywhere: the CSP admits
// this one stylesheet by its hash, so the bar is a <progress> styled here, not a width inline.
const CSS = `:root{--bg:#fff;--fg:#16181d;--muted:#4b5563;--line:#e5e7eb;--track:#e5e7eb;--fill:#15803d;--btn:#1d4ed8;--btn-fg:#fff;color-scheme:light}
[data-theme=dark]{--bg:#111827;--fg:#f3f4f6;--muted:#c7ccd4;--line:#374151;--track:#374151;--fill:#4ade80;--btn:#93c5fd;--btn-fg:#0b1220;color-scheme:dark}
html{background:var(--bg);color:var(--fg)}
body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
main{border:1px solid var(--line);border-radius:12px;overflow:hidden;background:var(--bg)}
.cover{display:block;width:100%;aspect-ratio:2/1;object-fit:cover;background:var(--track)}
.content{padding:14px 16px 16px}
h1{font-size:1.15rem;line-height:1.3;margin:0 0 10px;overflow-wrap:anywhere}
.raised{margin:0 0 6px}.raised strong{font-size:1.25rem}
progress{display:block;width:100%;height:10px;margin:0;border:0;border-radius:5px;background:var(--track);color:var(--fill);appearance:none;-webkit-appearance:none;overflow:hidden}
progress::-webkit-progress-bar{background:var(--track);border-radius:5px}
progress::-webkit-progress-value{background:var(--fill);border-radius:5px;transition:width .4s ease-out}
progress::-moz-progress-bar{background:var(--fill)}
.stats{display:flex;justify-content:space-between;gap:8px;margin:6px 0 0;color:var(--muted);font-size:.9rem}
.state{margin:12px 0 0;font-weight:600}
.donate{display:block;margin:14px 0 0;padding:10px 16px;border-radius:8px;background:var(--btn);color:var(--btn-fg);font-weight:700;text-align:center;text-decoration:none}
.donate:hover{filter:brightness(1.08)}.donate:focus-visible{outline:3px solid var(--fg);outline-offset:2px}
h2{font-size:.95rem;margin:16px 0 4px}
ul{list-style:none;margin:0;padding:0}
li{display:flex;justify-content:space-between;gap:12px;padding:6px 0;border-top:1px solid var(--line)}
li .name{overflow:hidden;text-overflow:ellipsis;white-space:nowrap}li .amount{font-weight:600;white-space:nowrap}
li.none{color:var(--muted)}
.sr{position:absolute;width:1px;height:1px;margin:-1px;padding:0;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0}
@media (prefers-reduced-motion:reduce){progress::-webkit-progress-value{transition:none}}`;

const CSS_HASH = `'sha256-${createHash('sha256').update(CSS).digest('base64')}'`;

/**
 * The only framable pages of the service: any site may embed them (`frame-ancestors *`).
 * Scripts come from the service itself (the page's script is /embed/frame.js, no inline code),
 * its stylesheet by hash; the stream is same-origin (connect-src); covers are anyone's images.
 */
export const EMBED_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  `style-src ${CSS_HASH}`,
  'img-src * data:',
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  'frame-ancestors *',
].join('; ');

/** `</script>` and friends cannot end the JSON block early; U+2028/9 stay inside strings. */
const jsonForScript = (v: unknown) =>
  JSON.stringify(v).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');

function layout(loc: EmbedLocale, theme: Theme, title: string, body: string): string {
  return `<!doctype html>
<html lang="${loc.lang}" data-theme="${theme}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><title>${esc(title)}</title><style>${CSS}</style></head>
<body>${body}</body></html>`;
}

function giftItem(loc: EmbedLocale, g: EmbedCampaign['gifts'][number]): string {
  const name = g.donor_name?.trim() || loc.strings.anonymous;
  return `<li><span class="name">${esc(name)}</span><span class="amount">${esc(loc.money(g.amount_cents, g.currency))}</span></li>`;
}

/** The widget's page; every number is in the HTML, so it reads the same with scripts off. */
export function campaignPage(c: EmbedCampaign, loc: EmbedLocale, theme: Theme): string {
  const s = loc.strings;
  const raisedLine = fill(esc(s.raisedOf), {
    raised: `<strong id="raised">${esc(loc.money(c.total_raised_cents, c.currency))}</strong>`,
    goal: `<span id="goal">${esc(loc.money(c.goal_amount_cents, c.currency))}</span>`,
  });
  const state = c.status === 'active' ? '' : `<p class="state" id="state">${esc(c.status === 'paused' ? s.paused : s.ended)}</p>`;
  const donate =
    c.status === 'active'
      ? `<a class="donate" id="donate" href="${esc(c.donate_url)}" target="_blank" rel="noopener">${esc(s.donate)}<span class="sr"> ${esc(s.newWindow)}</span></a>`
      : '';
  const gifts = c.gifts.length ? c.gifts.map((g) => giftItem(loc, g)).join('') : `<li class="none">${esc(s.noGifts)}</li>`;
  // What the script needs to keep the numbers live, as data (a JSON block is not run, so the CSP allows it).
  const data = {
    id: c.id,
    live: `/api/v1/fundraisers/${encodeURIComponent(c.id)}/live`,
    locale: loc.locale,
    currency: c.currency,
    maxGifts: LATEST_GIFTS,
    strings: { raisedOf: s.raisedOf, funded: s.funded, donors: s.donors, anonymous: s.anonymous, ended: s.ended },
  };
  const cover = c.cover_image ? `<img class="cover" src="${esc(c.cover_image)}" alt="">` : '';
  return layout(
    loc,
    theme,
    c.title,
    `<main>${cover}<div class="content">
<h1>${esc(c.title)}</h1>
<p class="raised" id="raised-line">${raisedLine}</p>
<progress id="progress" max="100" value="${Math.min(100, c.percentage_funded)}" aria-label="${esc(s.progress)}">${esc(loc.percent(c.percentage_funded))}</progress>
<p class="stats"><span id="funded">${esc(fill(s.funded, { pct: loc.percent(c.percentage_funded) }))}</span><span id="donors">${esc(loc.donors(c.donor_count))}</span></p>
${state}${donate}
<h2 id="latest">${esc(s.latest)}</h2>
<ul id="gifts" aria-labelledby="latest">${gifts}</ul>
</div></main>
<script type="application/json" id="embed-data">${jsonForScript(data)}</script>
<script src="/embed/frame.js" defer></script>`,
  );
}

/** The answer for a campaign that is not public (or no campaign): it names nothing, not even the slug asked for. */
export function notFoundPage(loc: EmbedLocale, theme: Theme): string {
  const body = `<main><div class="content"><h1>${esc(loc.strings.notFoundTitle)}</h1><p>${esc(loc.strings.notFoundText)}</p></div></main>`;
  // The script only reports the page's height here, so the widget shrinks to the message.
  return layout(loc, theme, loc.strings.notFoundTitle, `${body}\n<script src="/embed/frame.js" defer></script>`);
}
