/** The sandbox's hosted pages: plain HTML forms that work without JavaScript. */

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const esc = (v: unknown): string => String(v ?? '').replace(/[&<>"']/g, (c) => ESCAPES[c]!);

const originOf = (u: string): string | null => {
  try {
    const o = new URL(u).origin;
    return o === 'null' ? null : o;
  } catch {
    return null;
  }
};

/**
 * The page's own CSP. Browsers apply `form-action` to the redirect a form post answers with, so
 * the return URLs' origins must be listed or the 303 to the site would be blocked.
 */
export function pageCsp(redirectTargets: string[]): string {
  const origins = [...new Set(redirectTargets.map(originOf).filter((o): o is string => !!o))];
  return [
    "default-src 'none'",
    "style-src 'unsafe-inline'",
    `form-action 'self' ${origins.join(' ')}`.trim(),
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:34rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}
.badge{display:inline-block;background:#fde68a;border-radius:4px;padding:0 .4rem;font-size:.8rem}
table{width:100%;border-collapse:collapse;margin:1rem 0}td{padding:.3rem 0;border-bottom:1px solid #eee}
td.n{text-align:right;white-space:nowrap}form{display:inline}button{font-size:1rem;padding:.5rem 1.2rem;margin:.5rem .5rem 0 0;cursor:pointer}
.pay{background:#1d4ed8;color:#fff;border:0;border-radius:4px}.muted{color:#666;font-size:.9rem}`;

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><title>${esc(title)}</title><style>${STYLE}</style></head>
<body><p><span class="badge">Sandbox</span> <span class="muted">No real money moves. Test payments only.</span></p>
${body}</body></html>`;
}

/** Integer cents as an amount with the currency's code, e.g. "25.00 USD" (every currency here has 2 decimals). */
export function money(cents: number, currency: string): string {
  const n = Math.trunc(Number(cents) || 0);
  const sign = n < 0 ? '-' : '';
  const abs = Math.abs(n);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')} ${String(currency).toUpperCase()}`;
}

const MODE_TEXT: Record<string, string> = {
  payment: 'One-time payment',
  subscription: 'Subscription',
  setup: 'Save a payment method (no charge now)',
};

export interface CheckoutView {
  id: string;
  mode: string;
  status: string;
  currency: string;
  amount_total: number;
  interval?: string | null;
  customer_email?: string | null;
  line_items?: Array<{ name: string; amount_cents: number; quantity?: number }>;
}

export function checkoutPage(s: CheckoutView): string {
  const per = s.mode === 'subscription' ? ` / ${esc(s.interval ?? 'month')}` : '';
  const rows = (s.line_items ?? [])
    .map((li) => `<tr><td>${esc(li.name)}${(li.quantity ?? 1) > 1 ? ` × ${esc(li.quantity)}` : ''}</td><td class="n">${esc(money(li.amount_cents * (li.quantity ?? 1), s.currency))}${per}</td></tr>`)
    .join('');
  const base = `/sandbox/checkout/${encodeURIComponent(s.id)}`;
  const actions =
    s.status === 'open'
      ? `<form method="post" action="${esc(base)}/complete"><button class="pay" type="submit">${s.mode === 'setup' ? 'Save' : 'Pay'} ${s.mode === 'setup' ? '' : esc(money(s.amount_total, s.currency))}</button></form>
<form method="post" action="${esc(base)}/cancel"><button type="submit">Cancel</button></form>`
      : `<p><strong>This checkout session is ${esc(s.status)}.</strong></p>`;
  return layout(
    'Sandbox checkout',
    `<h1>Checkout</h1>
<p>${esc(MODE_TEXT[s.mode] ?? s.mode)}${s.customer_email ? ` · receipt to ${esc(s.customer_email)}` : ''}</p>
<table>${rows}<tr><td><strong>Total</strong></td><td class="n"><strong>${esc(money(s.amount_total, s.currency))}${per}</strong></td></tr></table>
<p class="muted">Currency: ${esc(String(s.currency).toUpperCase())} · Mode: ${esc(s.mode)} · Session ${esc(s.id)}</p>
${actions}`,
  );
}

export function connectPage(account: { id: string; email?: string | null; details_submitted?: boolean }, returnUrl: string): string {
  const action = `/sandbox/connect/${encodeURIComponent(account.id)}/complete?return_url=${encodeURIComponent(returnUrl)}`;
  return layout(
    'Sandbox account onboarding',
    `<h1>Set up payouts</h1>
<p>Connected account <code>${esc(account.id)}</code>${account.email ? ` for ${esc(account.email)}` : ''}.</p>
<p>${account.details_submitted ? 'Onboarding is already complete; submitting again re-sends the account update.' : 'Submit to finish onboarding: charges and payouts become enabled.'}</p>
<form method="post" action="${esc(action)}"><button class="pay" type="submit">Complete onboarding</button></form>`,
  );
}
