// Public face of the trust centre. Nothing outside it needs more than its route table, which src/modules/index.ts imports.
export { runChecks as trustChecks } from './trust.checks';
