/** Public profiles (read, edit, slug availability, badges, campaigns). Route table collected by src/modules/index.ts. */
export { toPublicProfile } from './profiles.service';
