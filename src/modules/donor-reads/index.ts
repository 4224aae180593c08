/** The donor's own reads of their gifts: summary, history, annual statement. */
export { default as donorReadsRoutes } from './donor-reads.routes';
