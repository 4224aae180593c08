/** The sandbox's processor fee: 2.9% + 30 cents per charge (docs/decisions/0008-sandbox-processor.md), rounded to the cent. */
export function sandboxFee(amountCents: number): number {
  return Math.round(amountCents * 0.029) + 30;
}
