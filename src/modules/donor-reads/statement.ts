import PDFDocument from 'pdfkit';
import { stringify } from 'csv-stringify/sync';
import type { StatementLine } from './donor-reads.reads';

export const NOT_A_TAX_RECEIPT = 'This is not a tax receipt.';

const money = (cents: number) => `${cents < 0 ? '-' : ''}${Math.floor(Math.abs(cents) / 100)}.${String(Math.abs(cents) % 100).padStart(2, '0')}`;

/** Totals per currency: gifts to campaigns of different currencies are never added together. */
function totals(lines: StatementLine[]): Array<{ currency: string; amount: number; tips: number }> {
  const by = new Map<string, { currency: string; amount: number; tips: number }>();
  for (const l of lines) {
    const t = by.get(l.currency) ?? { currency: l.currency, amount: 0, tips: 0 };
    t.amount += l.amount_cents;
    t.tips += l.tip_cents;
    by.set(l.currency, t);
  }
  return [...by.values()].sort((a, b) => a.currency.localeCompare(b.currency));
}

const COLUMNS = ['date', 'campaign', 'amount', 'tip', 'currency', 'receipt_id'];

/** RFC 4180 CSV: a header, one row per gift, a total row per currency, then the notice row. */
export function statementCsv(year: number, lines: StatementLine[]): string {
  const rows: string[][] = lines.map((l) => [l.paid_at.slice(0, 10), l.campaign, money(l.amount_cents), money(l.tip_cents), l.currency, l.receipt_id]);
  for (const t of totals(lines)) rows.push([`Total ${year}`, '', money(t.amount), money(t.tips), t.currency, '']);
  rows.push([NOT_A_TAX_RECEIPT, '', '', '', '', '']);
  return stringify(rows, { header: true, columns: COLUMNS, record_delimiter: '\r\n' });
}

export function statementPdf(year: number, donorName: string, lines: StatementLine[]): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({ size: 'A4', margin: 50, info: { Title: `Donations ${year}` } });
    const chunks: Buffer[] = [];
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);

    doc.fontSize(18).text(`Donation statement ${year}`);
    doc.moveDown(0.5).fontSize(11).text(donorName);
    doc.moveDown(0.5).fontSize(10).fillColor('#b00020').text(NOT_A_TAX_RECEIPT).fillColor('black');
    doc.moveDown();
    if (lines.length === 0) doc.text(`No paid gifts in ${year}.`);
    for (const l of lines) {
      const tip = l.tip_cents > 0 ? ` (+ ${money(l.tip_cents)} tip)` : '';
      doc.text(`${l.paid_at.slice(0, 10)}  ${l.campaign}  ${money(l.amount_cents)} ${l.currency}${tip}  receipt ${l.receipt_id}`);
    }
    doc.moveDown();
    for (const t of totals(lines)) doc.text(`Total ${year}: ${money(t.amount)} ${t.currency} in gifts, ${money(t.tips)} ${t.currency} in tips`);
    doc.moveDown().fontSize(9).text(`${NOT_A_TAX_RECEIPT} It lists gifts made through the platform for your own records.`);
    doc.end();
  });
}
