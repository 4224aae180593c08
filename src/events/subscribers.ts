import type { Subscriber } from './index';

/**
 * Every module's event subscribers, collected like route tables. A module adds its
 * `<module>.events.ts` list here (imported through the module's index.ts).
 */
export const subscribers: Subscriber[] = [];
