// Public face of ambassadors (directory, impact rail, applications). Nothing outside it needs more
// than its route table, which src/modules/index.ts imports.
export { IMPACT_RAIL_MAX } from './ambassadors.schemas';
