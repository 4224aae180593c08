import { periodEnd } from '../../src/integrations/payments/sandbox-objects';

/**
 * The sandbox's billing periods end as Stripe's do: on the anchor's day of the month, or the
 * month's last day when it is shorter, and back on the anchor's day after it (no drift). Adding a
 * month with Date#setUTCMonth made Jan 29 -> Mar 1 (2027 has no Feb 29), then the 1st of every
 * month: a monthly gift started on the 29th, 30th or 31st renewed 11 times in a year, not 12.
 */
const s = (iso: string) => Date.parse(iso) / 1000;
const iso = (secs: number) => new Date(secs * 1000).toISOString();

function renewals(anchor: string, n: number): string[] {
  const out: string[] = [];
  let end = s(anchor);
  for (let i = 0; i < n; i += 1) out.push(iso((end = periodEnd(end, 'month', s(anchor)))));
  return out;
}

describe('sandbox periodEnd', () => {
  it('when a monthly period is anchored on the 29th, 30th or 31st, then every month renews once, on the anchor day or the last day', () => {
    for (const day of [29, 30, 31]) {
      const anchor = `2026-${day === 31 ? '12' : '11'}-${day}T10:20:30.000Z`;
      const year = renewals(anchor, 12);
      expect(new Set(year.map((d) => d.slice(0, 7))).size).toBe(12);
      expect(year.every((d) => d.endsWith('T10:20:30.000Z'))).toBe(true);
      expect(year.find((d) => d.startsWith('2027-02'))).toBe('2027-02-28T10:20:30.000Z');
      expect(year.find((d) => d.startsWith('2027-03'))).toBe(`2027-03-${day}T10:20:30.000Z`);
    }
    expect(renewals('2026-11-29T00:00:00.000Z', 12).filter((d) => d < '2027-11-30T00:00:00.000Z')).toHaveLength(12);
  });

  it('when the period is a year, then it ends on the same day next year (Feb 29 -> Feb 28)', () => {
    expect(iso(periodEnd(s('2026-11-29T08:00:00Z'), 'year'))).toBe('2027-11-29T08:00:00.000Z');
    expect(iso(periodEnd(s('2028-02-29T08:00:00Z'), 'year'))).toBe('2029-02-28T08:00:00.000Z');
  });

  it('when no anchor is given, then the period starts its own anchor (a month on from the 15th is the 15th)', () => {
    expect(iso(periodEnd(s('2026-11-15T12:00:00Z'), 'month'))).toBe('2026-12-15T12:00:00.000Z');
    expect(iso(periodEnd(s('2026-12-15T12:00:00Z'), 'month'))).toBe('2027-01-15T12:00:00.000Z');
  });
});
