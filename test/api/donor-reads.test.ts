import { inflateSync } from 'node:zlib';
import { parse } from 'csv-parse/sync';
import request from 'supertest';
import { closeDb, createTestApp, testDb } from '../helpers/app';
import { authHeaders, createUser } from '../helpers/auth';
import { createGift } from '../helpers/donations';
import { createFundraiser } from '../helpers/fundraisers';

afterAll(closeDb);

const t = createTestApp();
const YEAR = new Date().getUTCFullYear();

/** The text a PDF draws: every content stream inflated, the hex and literal strings of its text operators joined. */
function pdfText(pdf: Buffer): string {
  const out: string[] = [];
  const raw = pdf.toString('latin1');
  const re = /stream\r?\n/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(raw))) {
    const start = m.index + m[0].length;
    const end = raw.indexOf('endstream', start);
    let body: string;
    try {
      body = inflateSync(pdf.subarray(start, end)).toString('latin1');
    } catch {
      body = raw.slice(start, end);
    }
    for (const tj of body.match(/\[(.*?)\]\s*TJ|<[0-9a-fA-F]*>\s*Tj|\((?:\\.|[^)])*\)\s*Tj/g) ?? []) {
      const parts = tj.match(/<[0-9a-fA-F]*>|\((?:\\.|[^)])*\)/g) ?? [];
      out.push(parts.map((p) => (p.startsWith('<') ? Buffer.from(p.slice(1, -1), 'hex').toString('latin1') : p.slice(1, -1))).join(''));
    }
  }
  return out.join('\n');
}

/** Strict RFC 4180 parse with csv-parse: every record as wide as the header, or it throws. */
function parseCsv(text: string): string[][] {
  return parse(text, { relax_column_count: false, skip_empty_lines: true }) as string[][];
}

async function donorWithGifts() {
  const db = testDb();
  const owner = await createUser(db);
  const donor = await createUser(db);
  const a = await createFundraiser(db, owner.id, { title: 'Clean water, "now"' });
  const b = await createFundraiser(db, owner.id);
  const g1 = await createGift(db, { fundraiserId: a.id, donorUserId: donor.id, amount: 2500, tip: 300, paidAt: new Date(Date.UTC(YEAR, 0, 2)) });
  const g2 = await createGift(db, { fundraiserId: a.id, donorUserId: donor.id, amount: 1000, paidAt: new Date(Date.UTC(YEAR, 0, 3)) });
  const g3 = await createGift(db, { fundraiserId: b.id, donorUserId: donor.id, amount: 700, paidAt: new Date(Date.UTC(YEAR, 0, 4)) });
  const pending = await createGift(db, { fundraiserId: b.id, donorUserId: donor.id, amount: 9999, status: 'pending', createdAt: new Date(Date.UTC(YEAR, 0, 5)) });
  const failed = await createGift(db, { fundraiserId: b.id, donorUserId: donor.id, amount: 8888, status: 'failed', createdAt: new Date(Date.UTC(YEAR, 0, 6)) });
  // Someone else's gift never shows.
  await createGift(db, { fundraiserId: a.id, donorUserId: (await createUser(db)).id, amount: 12345 });
  return { donor, a, b, g1, g2, g3, pending, failed, headers: await authHeaders(t, donor) };
}

describe('GET /me/donations/summary', () => {
  it('when the donor has paid, pending and failed gifts, then the bare summary counts the paid ones only', async () => {
    const s = await donorWithGifts();
    const r = await request(t.app).get('/api/v1/me/donations/summary').set(s.headers);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      lifetimeAmountCents: 2500 + 1000 + 700,
      donationCount: 3,
      campaignsSupported: 2,
      firstDonationAt: new Date(Date.UTC(YEAR, 0, 2)).toISOString(),
      lastDonationAt: new Date(Date.UTC(YEAR, 0, 4)).toISOString(),
    });
  });

  it('when the caller never gave, then zeros and null dates', async () => {
    const u = await createUser(testDb());
    const r = await request(t.app).get('/api/v1/me/donations/summary').set(await authHeaders(t, u));
    expect(r.body).toEqual({ lifetimeAmountCents: 0, donationCount: 0, campaignsSupported: 0, firstDonationAt: null, lastDonationAt: null });
  });

  it('when signed out, then 401', async () => {
    expect((await request(t.app).get('/api/v1/me/donations/summary')).status).toBe(401);
  });
});

describe('GET /me/donations', () => {
  it('when listed, then the caller\'s gifts come newest first with the documented fields and pagination', async () => {
    const s = await donorWithGifts();
    const r = await request(t.app).get('/api/v1/me/donations').set(s.headers);
    expect(r.status).toBe(200);
    expect(r.body.pagination).toEqual({ limit: 20, offset: 0, total: 5 });
    expect(r.body.data.map((d: any) => d.id)).toEqual([s.failed.id, s.pending.id, s.g3.id, s.g2.id, s.g1.id]);
    const first = r.body.data.find((d: any) => d.id === s.g1.id);
    expect(first).toEqual({
      id: s.g1.id,
      fundraiser: { id: s.a.id, title: s.a.title, slug: s.a.slug },
      amount_cents: 2500,
      tip_cents: 300,
      currency: 'USD',
      status: 'paid',
      anonymous: false,
      message: null,
      receipt_id: s.g1.receipt_id,
      created_at: expect.any(String),
      paid_at: new Date(Date.UTC(YEAR, 0, 2)).toISOString(),
      refunded_at: null,
      recurring_gift_id: null,
    });
    // No receipt capability before the gift is paid.
    expect(r.body.data.find((d: any) => d.id === s.pending.id).receipt_id).toBeNull();
  });

  it('when filtered by status and campaign and paged, then only matching gifts and the filtered total', async () => {
    const s = await donorWithGifts();
    const paid = await request(t.app).get('/api/v1/me/donations?status=paid&limit=2&offset=1').set(s.headers);
    expect(paid.body.pagination).toEqual({ limit: 2, offset: 1, total: 3 });
    expect(paid.body.data.map((d: any) => d.id)).toEqual([s.g2.id, s.g1.id]);
    const byCampaign = await request(t.app).get(`/api/v1/me/donations?fundraiser_id=${s.b.id}&status=pending`).set(s.headers);
    expect(byCampaign.body.data.map((d: any) => d.id)).toEqual([s.pending.id]);
    const past = await request(t.app).get('/api/v1/me/donations?offset=50').set(s.headers);
    expect(past.body).toEqual({ data: [], pagination: { limit: 20, offset: 50, total: 5 } });
  });

  it('when the status is not one of the four, then 400 Invalid status with allowed', async () => {
    const u = await createUser(testDb());
    const r = await request(t.app).get('/api/v1/me/donations?status=settled').set(await authHeaders(t, u));
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error: 'Invalid status', allowed: ['paid', 'refunded', 'failed', 'pending'] });
    expect(typeof r.body.message).toBe('string');
  });

  it('when fundraiser_id is not a uuid, then 400 with details', async () => {
    const u = await createUser(testDb());
    const r = await request(t.app).get('/api/v1/me/donations?fundraiser_id=abc').set(await authHeaders(t, u));
    expect(r.status).toBe(400);
    expect(r.body.details[0].path).toBe('query.fundraiser_id');
  });
});

describe('GET /me/donations/statement', () => {
  it('when asked for a CSV, then an attachment that parses, lists the year\'s paid gifts and says it is not a tax receipt', async () => {
    const s = await donorWithGifts();
    const r = await request(t.app).get(`/api/v1/me/donations/statement?year=${YEAR}&format=csv`).set(s.headers).buffer(true).parse((res, cb) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString('utf8')));
      res.on('end', () => cb(null, text));
    });
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toMatch(/^text\/csv/);
    expect(r.headers['content-disposition']).toBe(`attachment; filename="donations-${YEAR}.csv"`);
    const rows = parseCsv(r.body as string);
    expect(rows[0]).toEqual(['date', 'campaign', 'amount', 'tip', 'currency', 'receipt_id']);
    expect(rows[1]).toEqual([`${YEAR}-01-02`, 'Clean water, "now"', '25.00', '3.00', 'USD', s.g1.receipt_id]);
    expect(rows.slice(1, 4).map((x) => x[5])).toEqual([s.g1.receipt_id, s.g2.receipt_id, s.g3.receipt_id]);
    expect(rows.find((x) => x[0] === `Total ${YEAR}`)).toEqual([`Total ${YEAR}`, '', '42.00', '3.00', 'USD', '']);
    expect(rows[rows.length - 1][0]).toBe('This is not a tax receipt.');
    expect(r.body).not.toContain('99.99');
  });

  it('when asked for a PDF, then a real PDF attachment whose text lists the gifts and says it is not a tax receipt', async () => {
    const s = await donorWithGifts();
    const r = await request(t.app)
      .get(`/api/v1/me/donations/statement?year=${YEAR}&format=pdf`)
      .set(s.headers)
      .buffer(true)
      .parse((res, cb) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => cb(null, Buffer.concat(chunks)));
      });
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/pdf');
    expect(r.headers['content-disposition']).toBe(`attachment; filename="donations-${YEAR}.pdf"`);
    const pdf = r.body as Buffer;
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(pdf.subarray(-8).toString('latin1')).toContain('%%EOF');
    const text = pdfText(pdf);
    expect(text).toContain('This is not a tax receipt.');
    expect(text).toContain(`Donation statement ${YEAR}`);
    expect(text).toContain(s.g3.receipt_id);
    expect(text).toContain(`Total ${YEAR}: 42.00 USD`);
  });

  it('when the year is before 2026, after this year or not a number, or the format is unknown, then 400', async () => {
    const u = await createUser(testDb());
    const h = await authHeaders(t, u);
    for (const q of ['year=2025', `year=${YEAR + 1}`, 'year=abc', '', `year=${YEAR}&format=xlsx`]) {
      const r = await request(t.app).get(`/api/v1/me/donations/statement?${q}`).set(h);
      expect([q, r.status]).toEqual([q, 400]);
      expect(r.body.error).toBe('Validation failed');
    }
  });

  it('when signed out, then 401', async () => {
    expect((await request(t.app).get(`/api/v1/me/donations/statement?year=${YEAR}`)).status).toBe(401);
  });
});
