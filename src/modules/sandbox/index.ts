/** The sandbox processor's pages and test controls (only while STRIPE_SECRET_KEY is unset). */
export { default as sandboxRoutes } from './sandbox.routes';
