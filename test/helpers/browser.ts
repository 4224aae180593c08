import fs from 'node:fs';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';

/**
 * The machine's Chromium driven by playwright-core (no bundled browser download). Browser
 * tests are chosen at load time: where there is no Chromium they are skipped with a message,
 * unless the browser is required (REQUIRE_BROWSER=1, which .ci/run sets after installing it,
 * or CI=true): then the test file fails, so CI cannot pass without running them.
 */
export const CHROMIUM = '/usr/bin/chromium';

function executable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export const HAS_CHROMIUM = executable(CHROMIUM);

// Headless Chromium rendering the docs page took 29-36 s per test with the machine's load
// average at 15 (2 cores); jest's and Playwright's 30 s defaults are for an idle machine.
// The limits are where a hang is reported, not a speed target.
const BROWSER_TEST_TIMEOUT_MS = 240_000;
const BROWSER_STEP_TIMEOUT_MS = 120_000;

/** Whether a missing browser fails the run instead of skipping it. */
export function browserRequired(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.REQUIRE_BROWSER === '1' || env.REQUIRE_BROWSER === 'true' || env.CI === 'true';
}

/** `describe` when Chromium is at `chromium`; else `describe.skip`, or a thrown error when it is required. */
export function describeWithBrowser(file: string, chromium = CHROMIUM, env: NodeJS.ProcessEnv = process.env): typeof describe {
  if (executable(chromium)) {
    jest.setTimeout(BROWSER_TEST_TIMEOUT_MS); // the calling file's tests and hooks
    return describe;
  }
  if (browserRequired(env)) {
    throw new Error(
      `${file}: no Chromium at ${chromium}, and the browser tests are required here (REQUIRE_BROWSER=1 or CI=true); ` +
        'install it: apt-get install -y --no-install-recommends chromium',
    );
  }
  console.warn(`${file} skipped: no Chromium at ${chromium}`);
  return describe.skip;
}

export const PHONE: BrowserContextOptions = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 };
export const DESKTOP: BrowserContextOptions = { viewport: { width: 1280, height: 900 } };

/** Headless Chromium with no network of its own; `hosts` are resolved to 127.0.0.1. */
export function launchChromium(hosts: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync',
      ...(hosts.length ? [`--host-resolver-rules=${hosts.map((h) => `MAP ${h} 127.0.0.1`).join(', ')}`] : []),
    ],
  });
}

/** A browser context whose steps (navigation, waits, clicks) allow for a busy machine. */
export async function openContext(browser: Browser, options: BrowserContextOptions): Promise<BrowserContext> {
  const context = await browser.newContext(options);
  context.setDefaultTimeout(BROWSER_STEP_TIMEOUT_MS);
  return context;
}

/**
 * Records what a user would see go wrong on `page`: console errors, page errors, failed
 * requests, 4xx/5xx answers, and any request to an origin outside `origins` (refused: the page
 * must work from the service alone).
 */
export async function watchProblems(page: Page, origins: string[]): Promise<string[]> {
  const problems: string[] = [];
  await page.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.protocol === 'data:' || origins.includes(url.origin)) return route.continue();
    problems.push(`outside request: ${url.href}`);
    return route.abort();
  });
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`console: ${msg.text()}`);
  });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('requestfailed', (req) => problems.push(`failed: ${req.url()} ${req.failure()?.errorText ?? ''}`));
  page.on('response', (res) => {
    if (res.status() >= 400) problems.push(`${res.status()}: ${res.url()}`);
  });
  return problems;
}

/** How wide the page is laid out against the viewport (a string: this project's TypeScript has no DOM types). */
export const widthsOf = (page: Page) =>
  page.evaluate<{ doc: number; body: number; viewport: number }>(
    '({ doc: document.documentElement.scrollWidth, body: document.body.scrollWidth, viewport: window.innerWidth })',
  );
