/** Public face of comments: reading one comment in the API's shape (receipts show the donor's message). */
export { findOne as findComment, type CommentRow } from './comments.reads';
export { toComment } from './comments.service';
export { commentEnvelope } from './comments.schemas';
export { liveDonationNoteSql, upsertDonationNote } from './comments.donation-notes';
