/** Public face of the DMCA module (notice intake, staff list and take-downs); routes are collected by src/modules/index.ts. */
export type { NoticeRow, TakedownRow } from './dmca.repo';
