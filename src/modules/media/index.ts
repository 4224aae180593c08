/**
 * Public face of the media module: campaign uploads, image crops and outcome reports. Its
 * routes are collected by src/modules/index.ts; the stored files are served by its /media/ route.
 */
export { IMAGE_MAX_BYTES, IMAGE_TYPES, VIDEO_MAX_BYTES, VIDEO_TYPES } from './media.schemas';
export { reencode } from './images';
export { campaignUploads, forgetUploads, type CampaignUpload } from './media-removal';
