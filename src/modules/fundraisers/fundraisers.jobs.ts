/** The queue of cover-tint jobs (handler: src/jobs/cover-tint.ts); the service enqueues on a cover change. */
export const COVER_TINT_QUEUE = 'cover-tint';
