/** Public face of docs: where Swagger UI's assets are, for the static mount in src/app.ts. */
export { SWAGGER_UI_DIR } from './docs.routes';
