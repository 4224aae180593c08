import { defineModule } from '../define-module';
import mediaFiles from './media-files.routes';
import media, { mediaLimiter } from './media.routes';

export default defineModule({
  name: 'media',
  routes: [media, mediaFiles],
  limiters: [mediaLimiter],
});
