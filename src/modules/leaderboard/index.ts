/** Leaderboard, top creators and public donor pages. Route table collected by src/modules/index.ts. */
export { refreshLeaderboard } from './leaderboard.service';
