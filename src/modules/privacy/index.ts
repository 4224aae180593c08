// Public face of the privacy module: the operator CLI's commands (erasures, erase --now).
export { runErasure, erasureBlocks, GRACE_DAYS } from './privacy.erasure';
export { listScheduled as scheduledErasures } from './privacy.repo';
