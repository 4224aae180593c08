import { gzipSync } from 'node:zlib';
import sharp from 'sharp';
import request from 'supertest';
import { modulesFor } from '../../src/modules';
import { closeDb, createTestApp, type TestApp } from '../helpers/app';
import { createUser, type TestUser } from '../helpers/auth';
import { createGift } from '../helpers/donations';
import { createFundraiser, type FundraiserRow } from '../helpers/fundraisers';

afterAll(closeDb);

const SITE = 'http://site.test';
let t: TestApp;
let owner: TestUser;
let f: FundraiserRow;

const page = (slug: string, query = '') => request(t.app).get(`/embed/fundraisers/${encodeURIComponent(slug)}${query}`);
/** Spaces of any kind as one (ICU puts no-break and narrow no-break spaces in numbers). */
const spaced = (s: string) => s.replace(/\s+/g, ' ');
const money = (locale: string, cents: number) =>
  spaced(new Intl.NumberFormat(locale, { style: 'currency', currency: 'USD', minimumFractionDigits: cents % 100 ? 2 : 0, maximumFractionDigits: cents % 100 ? 2 : 0 }).format(cents / 100));
/** The page's text as a reader sees it (tags out, entities back). */
const text = (html: string) =>
  spaced(
    html
      .replace(/<(script|style)[\s\S]*?<\/\1>/g, ' ')
      .replace(/<[^>]+>/g, ' ')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&#39;/g, "'")
      .replace(/&quot;/g, '"')
      .replace(/&amp;/g, '&'),
  );

beforeAll(async () => {
  t = createTestApp({ env: { SITE_URL: SITE, PUBLIC_URL: 'http://api.test' } });
  owner = await createUser(t.ctx.db);
  f = await createFundraiser(t.ctx.db, owner.id, { title: 'Rebuild the <Riverside> Library', goal_amount_cents: 500_000 });
  // Oldest first: 6 gifts, so the page shows the 5 newest; the anonymous one carries a name that must not show.
  const base = Date.now() - 60_000;
  const gifts = [
    { donorName: 'Oldest Olga', amount: 1_000 },
    { donorName: 'Second Sam', amount: 2_000 },
    { donorName: 'Hidden Harriet', amount: 3_000, anonymous: true },
    { donorName: 'Fourth Fay', amount: 4_050 },
    { donorName: 'Fifth Fred', amount: 5_000 },
    { donorName: 'Newest Nina', amount: 100_000 },
  ];
  for (const [i, g] of gifts.entries()) {
    await createGift(t.ctx.db, { fundraiserId: f.id, donorEmail: `donor${i}@example.test`, paidAt: new Date(base + i * 1000), ...g });
  }
});

describe('GET /embed/fundraisers/{slug}', () => {
  test('when a public campaign is embedded then the page shows its title, goal, raised, donors, progress and five latest gifts in the HTML', async () => {
    const res = await page(f.slug);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    const body = text(res.text);
    expect(body).toContain('Rebuild the <Riverside> Library');
    expect(res.text).not.toContain('<Riverside>'); // escaped
    const raised = 1_000 + 2_000 + 3_000 + 4_050 + 5_000 + 100_000;
    expect(body).toContain(`${money('en-US', raised)} raised of ${money('en-US', 500_000)}`);
    expect(body).toContain('6 donors');
    expect(body).toContain('23% funded');
    expect(res.text).toMatch(/<progress id="progress" max="100" value="23(\.\d+)?"/);
    expect(body).toMatch(/Newest Nina \$1,000 .*Fifth Fred \$50 .*Fourth Fay \$40\.50 .*Anonymous \$30 .*Second Sam \$20/);
    expect(body).not.toContain('Oldest Olga');
    expect(res.text).not.toContain('Hidden Harriet');
    expect(res.text).not.toContain('@example.test');
    expect(res.text).toContain(`href="${SITE}/fundraisers/${f.slug}?donate=1" target="_blank" rel="noopener"`);
    // The script keeps it live from the campaign's stream.
    expect(res.text).toContain(`"live":"/api/v1/fundraisers/${f.id}/live"`);
    expect(res.text).toContain('<script src="/embed/frame.js" defer></script>');
  });

  test('when the embed page is answered then any site may frame it and nothing else is relaxed', async () => {
    const res = await page(f.slug);
    expect(res.headers['x-frame-options']).toBeUndefined();
    const csp = String(res.headers['content-security-policy']);
    expect(csp.split('; ')).toEqual(
      expect.arrayContaining(["default-src 'none'", "script-src 'self'", "connect-src 'self'", 'frame-ancestors *', "base-uri 'none'"]),
    );
    expect(csp).not.toContain('unsafe-inline');
    expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin');
    expect(res.headers['cache-control']).toBe('public, max-age=15');
  });

  test('when every other route that answers HTML is asked then it keeps refusing to be framed', async () => {
    const html = modulesFor(t.ctx.config).flatMap((m) =>
      m.routes
        .filter((r) => r.method === 'get' && [r.produces ?? []].flat().includes('text/html'))
        .map((r) => (m.root ? '' : '/api/v1') + m.prefix + (r.path === '/' ? '' : r.path)),
    );
    const others = html.filter((p) => !p.startsWith('/embed/'));
    // The docs page and the sandbox's hosted pages today; a new page joins this list by itself.
    expect(others).toEqual(expect.arrayContaining(['/api/v1/docs', '/sandbox/checkout/:id', '/sandbox/connect/:id']));
    for (const path of [...others.map((p) => p.replace(/:\w+/g, 'cs_test_missing')), '/api/v1/fundraisers/slug/' + f.slug, '/no-such-page']) {
      const res = await request(t.app).get(path);
      const framedBy = /frame-ancestors ([^;]+)/.exec(String(res.headers['content-security-policy']))?.[1];
      expect({ path, xfo: res.headers['x-frame-options'], framedBy }).toEqual({ path, xfo: 'SAMEORIGIN', framedBy: expect.stringMatching(/^'(self|none)'$/) });
    }
    const docs = await request(t.app).get('/api/v1/docs');
    expect(docs.status).toBe(200);
    expect(docs.headers['x-frame-options']).toBe('SAMEORIGIN');
  });

  test.each([
    ['ru', 'ru-RU', 'Собрано', 'доноров', 'Пожертвовать', 'Последние пожертвования', 'Аноним'],
    ['uk', 'uk-UA', 'Зібрано', 'донорів', 'Підтримати', 'Останні внески', 'Анонім'],
    ['es', 'es-ES', 'recaudados de', 'donantes', 'Donar', 'Últimas donaciones', 'Anónimo'],
  ])('when lang=%s then every word is translated and numbers are formatted for %s', async (lang, locale, raisedWord, donorsWord, donate, latest, anonymous) => {
    const res = await page(f.slug, `?lang=${lang}`);
    expect(res.status).toBe(200);
    expect(res.text).toContain(`<html lang="${lang}"`);
    const body = text(res.text);
    for (const word of [raisedWord, donorsWord, donate, latest, anonymous]) expect(body).toContain(word);
    for (const english of ['raised of', 'donors', 'Donate', 'Latest gifts', 'Anonymous', 'funded', 'new window']) expect(body).not.toContain(english);
    expect(body).toContain(money(locale, 115_050));
    expect(body).toContain(money(locale, 500_000));
    expect(body).toContain(`6 ${donorsWord}`);
    expect(body).toContain(spaced(new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 0 }).format(0.23)));
  });

  test('when theme=dark then the page is in the dark colours; with no theme, light', async () => {
    expect((await page(f.slug, '?theme=dark')).text).toContain('data-theme="dark"');
    expect((await page(f.slug)).text).toContain('data-theme="light"');
  });

  test('when lang or theme is not one the page has then 400 in the error shape', async () => {
    for (const q of ['?lang=de', '?theme=pink']) {
      const res = await page(f.slug, q);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: expect.any(String), message: expect.any(String) });
    }
  });

  test('when a campaign is paused or ended then it shows that and no Donate link; an unlisted one is embeddable', async () => {
    const paused = await createFundraiser(t.ctx.db, owner.id, { status: 'paused' });
    const ended = await createFundraiser(t.ctx.db, owner.id, { status: 'ended' });
    const unlisted = await createFundraiser(t.ctx.db, owner.id, { visibility: 'unlisted' });
    await createGift(t.ctx.db, { fundraiserId: unlisted.id, donorName: 'Una Unlisted', amount: 2_500 });
    const p = await page(paused.slug);
    expect([p.status, text(p.text).includes('Donations are paused for now.'), p.text.includes('?donate=1')]).toEqual([200, true, false]);
    const e = await page(ended.slug, '?lang=es');
    expect([e.status, text(e.text).includes('Esta campaña ha finalizado.'), e.text.includes('?donate=1')]).toEqual([200, true, false]);
    const u = await page(unlisted.slug);
    expect([u.status, text(u.text).includes('Una Unlisted $25')]).toEqual([200, true]);
    expect(text((await page(paused.slug)).text)).toContain('No gifts yet. Be the first!');
  });

  test('when the campaign is a draft, pending, private, rejected, deleted or unknown then a 404 page that names nothing', async () => {
    const hidden = await Promise.all([
      createFundraiser(t.ctx.db, owner.id, { status: 'draft', title: 'Secret draft title' }),
      createFundraiser(t.ctx.db, owner.id, { status: 'pending', title: 'Secret pending title' }),
      createFundraiser(t.ctx.db, owner.id, { visibility: 'private', title: 'Secret private title' }),
      createFundraiser(t.ctx.db, owner.id, { status: 'rejected', title: 'Secret rejected title' }),
      createFundraiser(t.ctx.db, owner.id, { deleted_at: new Date(), title: 'Secret deleted title' }),
    ]);
    const answers = [];
    for (const slug of [...hidden.map((h) => h.slug), 'no-such-campaign-anywhere']) {
      const res = await page(slug, '?lang=uk');
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['x-frame-options']).toBeUndefined();
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.text).not.toContain(slug);
      expect(res.text).not.toMatch(/Secret|campaign/i);
      expect(text(res.text)).toContain('Кампанія недоступна');
      answers.push(res.text);
    }
    // The same page whatever refused it.
    expect(new Set(answers).size).toBe(1);
  });
});

describe('GET /embed/fundraisers/{slug}/cover', () => {
  test('when the cover is stored inline then the page links its bytes instead of carrying them, and an http cover is linked as is', async () => {
    const bytes = await sharp({ create: { width: 400, height: 200, channels: 3, background: '#0f766e' } }).png().toBuffer();
    // Padded as an inline cover may be (up to 700 KB): the page must stay small all the same.
    const big = Buffer.concat([bytes, Buffer.alloc(300_000, 7)]);
    const inline = await createFundraiser(t.ctx.db, owner.id, { cover_image: `data:image/png;base64,${big.toString('base64')}` });
    const res = await page(inline.slug);
    const src = /<img class="cover" src="([^"]+)"/.exec(res.text)?.[1];
    expect(src).toMatch(new RegExp(`^/embed/fundraisers/${inline.slug}/cover\\?v=\\d+$`));
    expect(res.text.length).toBeLessThan(10_000);
    const img = await request(t.app).get(src!.replace(/&amp;/g, '&')).buffer(true);
    expect([img.status, img.headers['content-type'], Buffer.compare(img.body as Buffer, big)]).toEqual([200, 'image/png', 0]);

    expect((await page(f.slug)).text).toContain('<img class="cover" src="https://img.example.test/cover.jpg" alt="">');
    expect((await request(t.app).get(`/embed/fundraisers/${f.slug}/cover`)).status).toBe(404);
    const hidden = await createFundraiser(t.ctx.db, owner.id, { status: 'draft', cover_image: `data:image/png;base64,${bytes.toString('base64')}` });
    expect((await request(t.app).get(`/embed/fundraisers/${hidden.slug}/cover`)).status).toBe(404);
  });
});

describe('GET /embed/widget.js and /embed/frame.js', () => {
  test('when the widget script is loaded then it defines <campaign-widget> and believes only the service origin; other sites may load it', async () => {
    const res = await request(t.app).get('/embed/widget.js');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/javascript/);
    expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin');
    expect(res.text).toContain("customElements.define('campaign-widget'");
    expect(res.text).toContain(`const ORIGIN = "http://api.test";`);
    expect(res.text).not.toContain('__SERVICE_ORIGIN__');
    expect(res.text).toMatch(/if \(e\.origin !== ORIGIN\) return;/);
  });

  test('when the page, its script and the widget script are gzipped then together they are under 30 KB', async () => {
    const bodies = await Promise.all([page(f.slug), request(t.app).get('/embed/frame.js'), request(t.app).get('/embed/widget.js')]);
    const sizes = bodies.map((b) => gzipSync(Buffer.from(b.text)).length);
    const total = sizes.reduce((a, b) => a + b, 0);
    expect(total).toBeLessThan(30 * 1024);
  });
});
