import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { closeDb, createTestApp, testDb, type TestApp } from '../helpers/app';
import { createUser } from '../helpers/auth';
import { describeWithBrowser, HAS_CHROMIUM, launchChromium, openContext, PHONE, watchProblems, widthsOf } from '../helpers/browser';
import { createFundraiser } from '../helpers/fundraisers';
import { until } from '../helpers/processes';

/**
 * A donor's pay flow in a real headless Chromium on a phone: a guest's gift (POST /donations),
 * the sandbox processor's hosted checkout page, the Pay button, the 303 back to the website's
 * return URL, and the gift's outcome read there (GET /donations/{id}). Skipped, with a message,
 * where the machine has no Chromium.
 */
const describeBrowser = describeWithBrowser('checkout-browser.test.ts');
// The service under a host name (the checkout URL carries PUBLIC_URL), and the website it
// returns to (SITE_URL) on another, stood in for by a page of the test's own.
const HOST = 'api.test';
const SITE_HOST = 'site.test';

let server: Server;
let site: Server;
let siteOrigin = '';
let loopback = '';
let origin = '';
let t: TestApp;
let browser: Browser;

beforeAll(async () => {
  if (!HAS_CHROMIUM) return;
  // The ports must exist before the app, whose PUBLIC_URL and SITE_URL name them.
  site = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Thank you</title><p>Thank you for your gift.</p>'));
  server = createServer();
  await Promise.all([site, server].map((s) => new Promise<void>((r) => s.listen(0, '127.0.0.1', r))));
  const port = (server.address() as AddressInfo).port;
  loopback = `http://127.0.0.1:${port}`;
  origin = `http://${HOST}:${port}`;
  siteOrigin = `http://${SITE_HOST}:${(site.address() as AddressInfo).port}`;
  t = createTestApp({ env: { PUBLIC_URL: origin, SITE_URL: siteOrigin } });
  server.on('request', t.app);
  // The sandbox delivers its signed events over HTTP to the webhook route before it answers.
  t.ctx.config.SANDBOX_WEBHOOK_URL = `${loopback}/api/v1/webhooks/stripe`;
  browser = await launchChromium([HOST, SITE_HOST]);
});

afterAll(async () => {
  await browser?.close();
  for (const s of [server, site]) if (s) await new Promise<void>((r) => s.close(() => r()));
  await closeDb();
});

describeBrowser('the sandbox checkout in a real browser', () => {
  test('when a guest gives on a phone and pays on the hosted checkout then the browser lands on the return URL and the gift reads paid', async () => {
    const owner = await createUser(testDb());
    const campaign = await createFundraiser(testDb(), owner.id);
    const started = await fetch(`${loopback}/api/v1/donations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
      body: JSON.stringify({ fundraiser_id: campaign.id, amount_cents: 2500, donor_email: 'guest@example.test', donor_name: 'A Guest' }),
    });
    expect(started.status).toBe(201);
    const { data: gift } = (await started.json()) as { data: { donation_id: string; url: string } };
    expect(gift.url.startsWith(`${origin}/sandbox/checkout/`)).toBe(true);

    const context = await openContext(browser, PHONE);
    try {
      const page = await context.newPage();
      const problems = await watchProblems(page, [origin, siteOrigin]);
      await page.goto(gift.url);
      await page.getByText('25.00 USD').first().waitFor();
      const widths = await widthsOf(page);
      expect(widths.doc).toBeLessThanOrEqual(widths.viewport);
      await page.screenshot({ path: '/tmp/checkout-phone.png' });

      await page.getByRole('button', { name: /^Pay/ }).tap();
      await page.waitForURL((u) => u.origin === siteOrigin);
      expect(page.url()).toBe(`${siteOrigin}/fundraisers/${campaign.slug}?donation=${gift.donation_id}`);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }

    // What the return page asks: the gift's outcome, by its id.
    const outcome = await until('the gift paid', async () => {
      const res = await fetch(`${loopback}/api/v1/donations/${gift.donation_id}`);
      const body = (await res.json()) as { data: { status: string; amount_cents: number; receipt_id: string | null } };
      return body.data.status === 'paid' ? body.data : undefined;
    });
    expect(outcome).toMatchObject({ status: 'paid', amount_cents: 2500, receipt_id: expect.any(String) });
  });
});
