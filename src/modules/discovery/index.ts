/** Public face of discovery (lists, search, locations): writers elsewhere invalidate its cached list totals. */
export { invalidateListTotals } from './list-cache';
