/** Live progress of a campaign (server-sent events). Others need only the graceful stop. */
export { closeLiveStreams } from './live.hub';
