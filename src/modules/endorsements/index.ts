/** Endorsements of campaigns (endorse, withdraw, ask for one). Nothing outside it needs more than its module file, which src/modules/index.ts collects. */
export {};
