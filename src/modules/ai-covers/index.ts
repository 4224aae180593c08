/**
 * Public face of the AI covers module (POST /images/generate). Its route table is collected by
 * src/modules/index.ts; nothing else is shared yet.
 */
export { COVER_SIZE } from './ai-covers.service';
