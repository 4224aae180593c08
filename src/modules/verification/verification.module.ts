import { defineModule } from '../define-module';
import routes from './verification.routes';
import { verificationPersonalData } from './verification.personal-data';

export default defineModule({
  name: 'verification',
  personalData: verificationPersonalData,
  routes: [routes],
});
