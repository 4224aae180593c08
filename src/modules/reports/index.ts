/** Reports of content and users, read by staff. Its route table is collected by src/modules/index.ts. */
export type { ReportRow } from './reports.repo';
