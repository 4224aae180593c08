/**
 * Project updates: posts on a campaign's page, their likes, translations (machine and
 * hand-edited) and the translations tab. Posting emits `update.posted`. Route tables are
 * collected by src/modules/index.ts.
 */
export { UPDATE_TRANSLATION_QUEUE, toUpdate } from './updates.service';
export type { UpdateRow, TranslationRow } from './updates.repo';
/** Owner-only writes under /projects/{fundraiserId} (milestones use it too). */
export { ownsProject, ownedProject } from './updates.policy';
export { cleanTitle, cleanBody } from './updates.text';
