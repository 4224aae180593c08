/** Endorsements of campaigns (endorse, withdraw, ask for one). Route table collected by src/modules/index.ts. */
export { endorsementSubscribers } from './endorsements.events';
