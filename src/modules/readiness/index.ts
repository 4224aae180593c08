// Public face of publish readiness. Nothing outside it needs more than its route table, which src/modules/index.ts imports.
export { publishReadiness, type Readiness } from './readiness.service';
