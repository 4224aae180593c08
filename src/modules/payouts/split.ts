/**
 * Splits `amount` across parts in proportion to their weights, in whole cents that sum exactly
 * to `amount` (largest remainder; ties go to the part listed first, so the split is
 * deterministic for a given order). Parts with no positive weight get nothing; with no positive
 * weight at all, the amount is split evenly.
 */
export function splitProportionally<K>(amount: number, parts: Array<{ key: K; weight: number }>): Array<{ key: K; cents: number }> {
  if (!parts.length) return [];
  const weighted = parts.map((p) => ({ key: p.key, weight: Math.max(0, p.weight) }));
  let total = weighted.reduce((s, p) => s + p.weight, 0);
  if (total === 0) {
    for (const p of weighted) p.weight = 1;
    total = weighted.length;
  }
  // BigInt keeps amount * weight exact for any cents a bigint column can hold.
  const big = weighted.map((p, i) => {
    const num = BigInt(amount) * BigInt(p.weight);
    return { i, key: p.key, cents: Number(num / BigInt(total)), rem: num % BigInt(total) };
  });
  let left = amount - big.reduce((s, p) => s + p.cents, 0);
  const order = [...big].sort((a, b) => (a.rem === b.rem ? a.i - b.i : a.rem > b.rem ? -1 : 1));
  for (const p of order) {
    if (left <= 0) break;
    if (weighted[p.i].weight === 0) continue;
    p.cents += 1;
    left -= 1;
  }
  return big.map((p) => ({ key: p.key, cents: p.cents }));
}
