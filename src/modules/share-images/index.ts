/**
 * Public face of the share-images module: the one renderer of the platform's share images
 * (campaign link preview, poster, story card, share kit, profile card). Other image routes
 * (achievement cards) build their layout with `h` and render it with `renderOffThread` (the worker-thread pool), in the same
 * fonts and locales. Route tables are collected by src/modules/index.ts.
 */
export { h, renderPng, renderSvg, type Child, type Node, type Style } from './render';
export { FONT_STACK, fonts } from './fonts';
export { labelsFor, SHARE_LANGS, type ShareLabels, type ShareLang } from './labels';
export { fitted, localImageBytes } from './images';
export { SIZES } from './templates';
export { SHARE_IMAGES_QUEUE } from './share-images.jobs';
export { renderOffThread } from './share-images.service';
