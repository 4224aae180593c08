// Public face of activity (home feed, presence). Nothing outside it needs more than its route table,
// which src/modules/index.ts imports.
export { VIEWING_NOW_SECONDS } from './activity.reads';
