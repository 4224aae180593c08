import { defineModule } from '../define-module';
import routes from './embed.routes';

/** The embeddable campaign widget: its page for an iframe, that page's script, and the <campaign-widget> element. */
export default defineModule({
  name: 'embed',
  routes: [routes],
});
