// Public face of the privacy module: the operator CLI's commands (erasures, erase --now, reapply-erasures).
export { eraseNow, erasureBlocks, runErasure, GRACE_DAYS } from './privacy.erasure';
export { listScheduled as scheduledErasures } from './privacy.repo';
export { accountIdByEmail } from './privacy.reads';
export { pruneExpiredRequests as prunePrivacyRequests } from './privacy.repo';
export { expireExports } from './privacy.exports';
export { reapplyErasures, type ReapplyReport } from './privacy.reapply';
