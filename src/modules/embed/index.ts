/** The embeddable campaign widget. Nothing outside it needs more than its module file, which src/modules/index.ts collects. */
export {};
