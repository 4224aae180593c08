/**
 * Public face of achievements: the event subscribers that award them and the public feed items
 * (home activity). The route table is collected by src/modules/index.ts.
 */
export { recentAchievements } from './achievements.service';
