import fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Frame, Page } from 'playwright-core';
import sharp from 'sharp';
import { closeLiveStreams } from '../../src/modules/live';
import { closeDb, createTestApp, testDb, type TestApp } from '../helpers/app';
import { createUser } from '../helpers/auth';
import { DESKTOP, describeWithBrowser, HAS_CHROMIUM, launchChromium, openContext, watchProblems } from '../helpers/browser';
import { createGift } from '../helpers/donations';
import { createFundraiser, type FundraiserRow } from '../helpers/fundraisers';

/**
 * The embeddable widget as a partner site uses it, in a real headless Chromium: a page on another
 * origin loads /embed/widget.js and shows <campaign-widget>; the frame shows the campaign, a gift
 * settled meanwhile (the sandbox's signed webhook) moves its progress bar, Donate opens the site's
 * gift flow in a new window, axe-core finds nothing serious in either theme, and with scripts off
 * the page still has its numbers. WIDGET_SCREENSHOTS=1 also writes docs/images/widget-{light,dark}.png.
 */
const describeBrowser = describeWithBrowser('widget-browser.test.ts');
const HOST = 'api.test';
const PARTNER_HOST = 'partner.test';
const SITE_HOST = 'site.test';
const SHOTS = process.env.WIDGET_SCREENSHOTS === '1' ? path.join(__dirname, '../../docs/images') : os.tmpdir();
const AXE_SOURCE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

// A cover drawn here (the browser may reach no host but the test's own), stored inline as covers may be.
const COVER_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="800" height="400"><defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#0f766e"/><stop offset="1" stop-color="#1d4ed8"/></linearGradient></defs><rect width="800" height="400" fill="url(#g)"/><circle cx="620" cy="110" r="70" fill="#fde68a" opacity=".9"/><path d="M0 330 L180 210 L330 300 L500 170 L800 320 L800 400 L0 400Z" fill="#064e3b" opacity=".7"/></svg>';

let api: Server;
let partner: Server;
let site: Server;
let loopback = '';
let origin = '';
let partnerOrigin = '';
let siteOrigin = '';
let t: TestApp;
let browser: Browser;
let campaign: FundraiserRow;

/** The partner's page: nothing of the service but the script tag and the element, under a strict CSP of its own. */
function partnerPage(slug: string, theme: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Riverside stream overlay</title>
<meta name="viewport" content="width=device-width,initial-scale=1"></head>
<body><main><h1>Our charity stream</h1><div style="max-width:420px">
<campaign-widget slug="${slug}" lang="en" theme="${theme}"></campaign-widget></div></main>
<script src="${origin}/embed/widget.js"></script></body></html>`;
}

const listen = (s: Server) => new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
const portOf = (s: Server) => (s.address() as AddressInfo).port;

beforeAll(async () => {
  if (!HAS_CHROMIUM) return;
  api = createServer();
  partner = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/impostor') {
      // Stands in for a page of another origin in the widget's own frame: its size message must be ignored.
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>x</title><script>parent.postMessage({ type: "campaign-widget:size", height: 77 }, "*")</script>');
      return;
    }
    res.writeHead(200, {
      'content-type': 'text/html',
      // The widget must work under a host page's strict policy: only the service's script and frames.
      'content-security-policy': `default-src 'none'; script-src ${origin}; frame-src ${origin} ${partnerOrigin}; style-src 'unsafe-inline'`,
    });
    res.end(partnerPage(url.searchParams.get('slug') ?? '', url.searchParams.get('theme') ?? 'light'));
  });
  site = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><html lang="en"><title>Give</title><h1>Give to this campaign</h1></html>'));
  await Promise.all([api, partner, site].map(listen));
  loopback = `http://127.0.0.1:${portOf(api)}`;
  origin = `http://${HOST}:${portOf(api)}`;
  partnerOrigin = `http://${PARTNER_HOST}:${portOf(partner)}`;
  siteOrigin = `http://${SITE_HOST}:${portOf(site)}`;
  t = createTestApp({ env: { PUBLIC_URL: origin, SITE_URL: siteOrigin } });
  api.on('request', t.app);
  // The sandbox delivers its signed events over HTTP to the webhook route before it answers.
  t.ctx.config.SANDBOX_WEBHOOK_URL = `${loopback}/api/v1/webhooks/stripe`;

  const owner = await createUser(testDb());
  const cover = `data:image/png;base64,${(await sharp(Buffer.from(COVER_SVG)).png().toBuffer()).toString('base64')}`;
  campaign = await createFundraiser(testDb(), owner.id, { title: 'Rebuild the Riverside Library', goal_amount_cents: 2_000_000, cover_image: cover });
  const base = Date.now() - 3_600_000;
  const gifts = [
    { donorName: 'Marta Kowalski', amount: 25_000 },
    { donorName: 'Hidden Name', amount: 10_000, anonymous: true },
    { donorName: 'Diego Alvarez', amount: 150_000 },
    { donorName: 'Priya Natarajan', amount: 50_000 },
    { donorName: 'Sam Okafor', amount: 1_500 },
  ];
  for (const [i, g] of gifts.entries()) await createGift(testDb(), { fundraiserId: campaign.id, paidAt: new Date(base + i * 60_000), ...g });
  browser = await launchChromium([HOST, PARTNER_HOST, SITE_HOST]);
});

afterAll(async () => {
  await browser?.close();
  if (t) await closeLiveStreams(t.ctx);
  for (const s of [api, partner, site]) if (s) await new Promise<void>((r) => s.close(() => r()));
  await closeDb();
});

/** The embed page's frame inside <campaign-widget> (its iframe sits in the element's shadow root). */
async function widgetFrame(page: Page): Promise<Frame> {
  const handle = await page.locator('campaign-widget iframe').elementHandle();
  const frame = await handle!.contentFrame();
  await frame!.locator('#progress').waitFor();
  return frame!;
}

/** axe-core's serious and critical violations in `frame` (its source injected through the driver, not a tag the CSP would refuse). */
async function axeViolations(frame: Frame | Page, options: Record<string, unknown> = {}): Promise<string[]> {
  await frame.evaluate(AXE_SOURCE);
  const result = await frame.evaluate<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: unknown }> }> }, Record<string, unknown>>(
    (opts) => (globalThis as unknown as { axe: { run: (ctx: unknown, o: unknown) => Promise<never> } }).axe.run((globalThis as unknown as { document: unknown }).document, opts),
    { resultTypes: ['violations'], ...options },
  );
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}): ${JSON.stringify(v.nodes.map((n) => n.target))}`);
}

/** A guest's gift through the API and the sandbox: the signed payment_intent.succeeded is delivered (and committed) before the confirm answers. */
async function settleGift(amount: number, donorName: string): Promise<void> {
  const started = await fetch(`${loopback}/api/v1/payments/create-intent`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
    body: JSON.stringify({ fundraiser_id: campaign.id, amount_cents: amount, donor_email: 'live@example.test', donor_name: donorName }),
  });
  expect(started.status).toBe(201);
  const { data } = (await started.json()) as { data: { payment_intent_id: string } };
  const confirmed = await fetch(`${loopback}/sandbox/payment-intents/${data.payment_intent_id}/confirm`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ outcome: 'succeeded' }),
  });
  expect(confirmed.status).toBe(200);
  expect(((await confirmed.json()) as { data: { webhook_delivered: boolean } }).data.webhook_delivered).toBe(true);
}

describeBrowser('the embeddable widget on another site, in a real browser', () => {
  test('when a partner page embeds the widget then it shows the campaign sized to its content, a settled gift moves the bar within 2 s, Donate opens a new window, and axe finds nothing serious', async () => {
    const context = await openContext(browser, DESKTOP);
    try {
      const page = await context.newPage();
      const problems = await watchProblems(page, [origin, partnerOrigin, siteOrigin]);
      const streamOpen = page.waitForResponse((r) => r.url() === `${origin}/api/v1/fundraisers/${campaign.id}/live` && r.status() === 200);
      await page.goto(`${partnerOrigin}/?slug=${campaign.slug}&theme=light`);
      const frame = await widgetFrame(page);
      expect(new URL(frame.url()).origin).toBe(origin);
      await frame.getByRole('heading', { name: 'Rebuild the Riverside Library' }).waitFor();
      expect(await frame.locator('#raised').textContent()).toBe('$2,365');
      expect(await frame.locator('#donors').textContent()).toBe('5 donors');
      const names = await frame.locator('#gifts .name').allTextContents();
      expect(names).toEqual(['Sam Okafor', 'Priya Natarajan', 'Diego Alvarez', 'Anonymous', 'Marta Kowalski']);

      // The element takes the height the page posts (not its 420px default), and the page's title.
      const iframe = page.locator('campaign-widget iframe');
      const content = await frame.locator('main').evaluate((m) => Math.ceil(m.getBoundingClientRect().height));
      await page.waitForFunction(
        ([h]) => {
          const el = (globalThis as any).document.querySelector('campaign-widget').shadowRoot.querySelector('iframe');
          return el.style.height === `${h}px`;
        },
        [content],
        { polling: 50 },
      );
      expect(await iframe.getAttribute('title')).toBe('Rebuild the Riverside Library');
      await page.locator('campaign-widget').screenshot({ path: path.join(SHOTS, 'widget-light.png') });

      // A gift settled while the page is open: the stream moves the bar, the totals and the list.
      await streamOpen;
      const before = await frame.locator('#progress').evaluate((p) => (p as unknown as { value: number }).value);
      await settleGift(400_000, 'Lena Fischer');
      const settledAt = Date.now();
      await frame.waitForFunction((v) => (globalThis as any).document.getElementById('progress').value > v, before, { polling: 50, timeout: 60_000 });
      const movedAfterMs = Date.now() - settledAt;
      expect(movedAfterMs).toBeLessThanOrEqual(2_000);
      expect(await frame.locator('#progress').evaluate((p) => (p as unknown as { value: number }).value)).toBeCloseTo(31.83, 1);
      await frame.locator('#gifts .name').first().filter({ hasText: 'Lena Fischer' }).waitFor();
      expect(await frame.locator('#raised').textContent()).toBe('$6,365');
      expect(await frame.locator('#donors').textContent()).toBe('6 donors');
      expect(await frame.locator('#gifts li').count()).toBe(5);

      // Donate: the site's gift flow in a new top-level window, without a handle back to the partner's page.
      // Pressed from the keyboard: a trusted activation, as a click is, without pointer coordinates,
      // which the driver cannot compute inside this cross-origin (out-of-process) frame with this Chromium.
      await frame.getByRole('link', { name: /^Donate/ }).focus();
      const [popup] = await Promise.all([context.waitForEvent('page'), page.keyboard.press('Enter')]);
      await popup.waitForLoadState();
      expect(popup.url()).toBe(`${siteOrigin}/fundraisers/${campaign.slug}?donate=1`);
      expect(await popup.evaluate('window.opener === null')).toBe(true);
      await popup.close();

      expect(await axeViolations(frame)).toEqual([]);
      // The partner's page with the element in it (the iframe's title is the element's doing).
      expect(await axeViolations(page, { iframes: false })).toEqual([]);

      expect(problems).toEqual([]);

      // A frame of another origin posting the same message is not believed (leaving the page ends its stream).
      const height = await iframe.evaluate((f) => (f as unknown as { style: { height: string } }).style.height);
      await iframe.evaluate((f, url) => ((f as unknown as { src: string }).src = url), `${partnerOrigin}/impostor`);
      await page.waitForTimeout(500);
      expect(await iframe.evaluate((f) => (f as unknown as { style: { height: string } }).style.height)).toBe(height);
    } finally {
      await context.close();
    }
  });

  test('when the widget is dark then axe finds nothing serious either, and the screenshot is taken', async () => {
    const context = await openContext(browser, DESKTOP);
    try {
      const page = await context.newPage();
      const problems = await watchProblems(page, [origin, partnerOrigin, siteOrigin]);
      await page.goto(`${partnerOrigin}/?slug=${campaign.slug}&theme=dark`);
      const frame = await widgetFrame(page);
      expect(await frame.locator('html').getAttribute('data-theme')).toBe('dark');
      await frame.getByRole('heading', { name: 'Rebuild the Riverside Library' }).waitFor();
      expect(await axeViolations(frame)).toEqual([]);
      await page.locator('campaign-widget').screenshot({ path: path.join(SHOTS, 'widget-dark.png') });
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  test('when scripts are off then the embed page still reads right: title, numbers, bar and gifts', async () => {
    const context = await openContext(browser, { ...DESKTOP, javaScriptEnabled: false });
    try {
      const page = await context.newPage();
      const res = await page.goto(`${origin}/embed/fundraisers/${campaign.slug}?lang=es`);
      expect(res?.status()).toBe(200);
      await page.getByRole('heading', { name: 'Rebuild the Riverside Library' }).waitFor();
      const nbsp = (s: string | null) => (s ?? '').replace(/\s+/g, ' ');
      const raised = await page.locator('#raised').textContent();
      expect(nbsp(raised)).toMatch(/^\d[\d.]* US\$$/);
      expect(nbsp(await page.locator('#raised-line').textContent())).toContain('recaudados de 20.000 US$');
      expect(await page.locator('#donors').textContent()).toMatch(/^\d+ donantes$/);
      expect(Number(await page.locator('#progress').getAttribute('value'))).toBeGreaterThan(0);
      expect(await page.locator('#gifts li').count()).toBe(5);
      expect(await page.getByRole('link', { name: /^Donar/ }).getAttribute('target')).toBe('_blank');
    } finally {
      await context.close();
    }
  });
});
