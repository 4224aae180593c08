// Public face of the team roster. Nothing outside it needs more than its route table, which src/modules/index.ts imports.
export { TEAM_MAX } from './team.reads';
