import { defineModule } from '../define-module';
import mediaFiles from './media-files.routes';
import media, { mediaLimiter } from './media.routes';
import { mediaPersonalData } from './media.personal-data';

export default defineModule({
  name: 'media',
  personalData: mediaPersonalData,
  routes: [media, mediaFiles],
  limiters: [mediaLimiter],
});
