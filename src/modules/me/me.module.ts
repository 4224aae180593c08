import { defineModule } from '../define-module';
import capabilities from './capabilities.routes';
import privateContact from './private-contact.routes';

export default defineModule({
  name: 'me',
  routes: [privateContact, capabilities],
});
