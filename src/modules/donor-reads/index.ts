/**
 * The donor's own reads of their gifts: summary, history, annual statement. Nothing outside it
 * needs more than its module file, which src/modules/index.ts collects.
 */
export {};
