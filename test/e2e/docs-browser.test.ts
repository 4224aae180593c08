import type { AddressInfo, Server } from 'node:net';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { exampleKey, loadExamples } from '../../src/http/openapi/openapi-examples';
import { closeDb, createTestApp } from '../helpers/app';
import { DESKTOP, describeWithBrowser, HAS_CHROMIUM, launchChromium, openContext, PHONE, watchProblems, widthsOf } from '../helpers/browser';

/**
 * The docs page (GET /api/v1/docs, Swagger UI) in a real headless Chromium, on a phone and on a
 * desktop, with every request outside the service refused: the page must work from the API's
 * own assets alone. Skipped, with a message, where the machine has no Chromium.
 */
const describeBrowser = describeWithBrowser('docs-browser.test.ts');
const SCREENSHOT = '/tmp/docs-phone.png';
// A host name, as readers reach the service, not 127.0.0.1: browsers and Swagger UI treat
// loopback and localhost origins differently (a plain-http loopback origin counts as secure).
const HOST = 'docs.test';

const t = createTestApp();
let server: Server;
let origin = '';
let browser: Browser;

beforeAll(async () => {
  if (!HAS_CHROMIUM) return;
  server = t.app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  origin = `http://${HOST}:${(server.address() as AddressInfo).port}`;
  browser = await launchChromium([HOST]);
});

afterAll(async () => {
  await browser?.close();
  if (server) await new Promise<void>((r) => server.close(() => r()));
  await closeDb();
});

/** Opens the docs page, recording what goes wrong (helpers/browser.ts watchProblems). */
async function openDocs(options: BrowserContextOptions): Promise<{ page: Page; problems: string[]; close(): Promise<void> }> {
  const context = await openContext(browser, options);
  const page = await context.newPage();
  const problems = await watchProblems(page, [origin]);
  await page.goto(`${origin}/api/v1/docs`, { waitUntil: 'load' });
  await page.locator('.opblock-tag-section').first().waitFor();
  return { page, problems, close: () => context.close() };
}

/** The tag sections as rendered, top to bottom. */
const renderedTags = (page: Page) => page.locator('.opblock-tag').evaluateAll((els) => els.map((e) => e.getAttribute('data-tag')));

/** Opens `tag` and its operation `GET path`, and answers the operation's block. */
async function expandOperation(page: Page, tag: string, path: string) {
  await page.locator(`.opblock-tag[data-tag="${tag}"]`).click();
  const op = page.locator('.opblock-get').filter({ has: page.locator(`.opblock-summary-path[data-path="${path}"]`) });
  await op.locator('.opblock-summary').first().click();
  await op.locator('.responses-wrapper').waitFor();
  return op;
}

describeBrowser('the docs page in a real browser', () => {
  let tagOrder: string[];

  beforeAll(async () => {
    const res = await fetch(`${origin.replace(HOST, '127.0.0.1')}/api/v1/openapi.json`);
    tagOrder = ((await res.json()) as { tags: Array<{ name: string }> }).tags.map((x) => x.name);
  });

  test('when a phone opens the docs then the operations list renders in tag order, fits the screen, and an operation shows its example', async () => {
    const { page, problems, close } = await openDocs(PHONE);
    try {
      expect(await renderedTags(page)).toEqual(tagOrder);
      expect(tagOrder.slice(0, 3)).toEqual(['fundraisers', 'discovery', 'donations']);
      const op = await expandOperation(page, 'fundraisers', '/api/v1/fundraisers/slug/{slug}');
      // The example recorded from the suite (docs/openapi/examples.json), not one made up from the schema.
      const recorded = loadExamples()[exampleKey('get', '/api/v1/fundraisers/slug/{slug}')]!.response as { data: { slug: string } };
      const example = op.locator('.responses-wrapper .microlight').first();
      await example.waitFor();
      expect(await example.textContent()).toContain(`"slug": "${recorded.data.slug}"`);
      // Laid out for the phone: the example and a tag's description use the screen's width,
      // not the narrow column the desktop layout leaves them.
      expect((await example.boundingBox())!.width).toBeGreaterThan(390 * 0.75);
      expect((await page.locator('.opblock-tag[data-tag="donations"] small').boundingBox())!.width).toBeGreaterThan(390 * 0.75);
      const widths = await widthsOf(page);
      expect(widths.viewport).toBe(390);
      expect(widths.doc).toBeLessThanOrEqual(widths.viewport);
      expect(widths.body).toBeLessThanOrEqual(widths.viewport);
      await page.screenshot({ path: SCREENSHOT });
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  test('when a desktop browser opens the docs then it renders the same list and expands an operation without errors', async () => {
    const { page, problems, close } = await openDocs(DESKTOP);
    try {
      expect(await renderedTags(page)).toEqual(tagOrder);
      const op = await expandOperation(page, 'operations', '/healthz');
      expect(await op.locator('.responses-wrapper').textContent()).toContain('"status"');
      const widths = await widthsOf(page);
      expect(widths.doc).toBeLessThanOrEqual(widths.viewport);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });
});
