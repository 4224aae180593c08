/** Blocks: other modules ask whether a user blocked another (comments, follows) through these reads. */
export { isBlocked, blockedIds } from './blocks.repo';
