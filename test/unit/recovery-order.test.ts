import type { PaymentEvent } from '../../src/integrations/payments';
import { oldestFirst } from '../../src/modules/reconciliation/recovery.service';

// Stripe's `created` is in whole seconds: a payment and its refund of one second can only be told
// apart by their place in the list, which Stripe gives newest first.
const at = (id: string, second: number) => ({ id, created: new Date(second * 1000) }) as unknown as PaymentEvent;

describe('the order recover-since replays a listed window in', () => {
  test('when a newest-first list holds only events of one second, then they are replayed as they happened', () => {
    const listed = [at('dispute', 100), at('refund', 100), at('paid', 100)];
    expect(oldestFirst(listed, 'newest-first').map((e) => e.id)).toEqual(['paid', 'refund', 'dispute']);
  });

  test('when a newest-first list spans seconds, then it is replayed oldest first, ties as they happened', () => {
    const listed = [at('refund', 100), at('paid', 100), at('started', 99)];
    expect(oldestFirst(listed, 'newest-first').map((e) => e.id)).toEqual(['started', 'paid', 'refund']);
  });

  test('when an oldest-first list is given, then it keeps its order, ties included', () => {
    const listed = [at('started', 99), at('paid', 100), at('refund', 100)];
    expect(oldestFirst(listed, 'oldest-first').map((e) => e.id)).toEqual(['started', 'paid', 'refund']);
  });
});
