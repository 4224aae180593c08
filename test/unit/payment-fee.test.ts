import fs from 'node:fs';
import path from 'node:path';
import { cleanFee } from '../../src/modules/webhooks/payment-fee';

// Money modules read and clean the processor's fee one way (src/modules/webhooks/payment-fee.ts)
// and take refunds back one way (src/modules/webhooks/payment-refund.ts); these cases find a
// second way by scanning the modules, so tomorrow's copy is caught too.

const MODULES = path.resolve(__dirname, '../../src/modules');
const files = (dir: string): string[] =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []));
const sources = files(MODULES).map((f) => ({ file: path.relative(MODULES, f), text: fs.readFileSync(f, 'utf8') }));

describe('the processor fee and refunds, one way', () => {
  test('when a fee is cleaned, then only whole cents above zero and below the payment are kept', () => {
    expect(cleanFee(33, 1000)).toBe(33);
    expect(cleanFee(0, 1000)).toBe(0);
    expect(cleanFee(-5, 1000)).toBe(0);
    expect(cleanFee(1000, 1000)).toBe(0);
    expect(cleanFee(12.5, 1000)).toBe(0);
    expect(cleanFee(null, 1000)).toBe(0);
    expect(cleanFee(undefined, 1000)).toBe(0);
    expect(cleanFee('33', 1000)).toBe(33);
    expect(cleanFee(33, null)).toBe(0);
    expect(cleanFee(33, Number.NaN)).toBe(0);
  });

  test('when the modules are scanned, then only webhooks/payment-fee.ts asks the processor for a fee', () => {
    expect(sources.filter((s) => s.text.includes('feeForPaymentIntent(')).map((s) => s.file)).toEqual(['webhooks/payment-fee.ts']);
  });

  test('when the modules are scanned, then no handler attaches its own prefetch with Object.assign', () => {
    expect(sources.filter((s) => /Object\.assign\([^;]*prefetch/s.test(s.text)).map((s) => s.file)).toEqual([]);
  });

  test('when the modules are scanned, then a processor refund posts its ledger group only in webhooks/payment-refund.ts', () => {
    expect(sources.filter((s) => /kind: 'refund'/.test(s.text)).map((s) => s.file)).toEqual(['webhooks/payment-refund.ts']);
  });
});
