/** Leaderboard, top creators and public donor pages. Route table collected by src/modules/index.ts. */
export { leaderboardSubscribers } from './leaderboard.events';
export { registerLeaderboardJobs } from './leaderboard.jobs';
export { refreshLeaderboard } from './leaderboard.service';
