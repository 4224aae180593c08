import { v5 as uuidv5 } from 'uuid';
import type { EventType } from './types';

/** A fixed namespace: changing it would change every derived id (receivers deduplicate by them). */
const NAMESPACE = '3f0c6f4e-5d1b-4a6e-9c47-0b7f6a2d9e11';

/**
 * The id of an event a processor fact causes (a gift paid, a refund, a payout), derived from the
 * processor's own id for that fact and the event type: the outbound webhook's `webhook-id` is this
 * id, so when the same fact is applied again after a database restore (recover-since), receivers
 * get the id they already had. A UUID (v5), as every event id, and valid for Standard Webhooks.
 */
export function causedEventId(processorKey: string, type: EventType): string {
  return uuidv5(`${processorKey}\n${type}`, NAMESPACE);
}
