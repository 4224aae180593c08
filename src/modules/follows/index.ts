/** Follows of users and organizations. Nothing outside it needs more than its module file, which src/modules/index.ts collects. */
export {};
