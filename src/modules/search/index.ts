// Public face of search. Nothing outside it needs more than its route table, which src/modules/index.ts imports.
export { Q_MIN as SEARCH_Q_MIN } from './search.service';
