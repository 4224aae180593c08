/** Public face of the GIFs module (GET /gifs/trending, /gifs/search); its routes are collected by src/modules/index.ts. */
export { normalizeTerm, TERM_MAX } from './gifs.schemas';
