import { defineModule } from '../define-module';
import routes from './blocks.routes';
import { blocksPersonalData } from './blocks.personal-data';

export default defineModule({
  name: 'blocks',
  publishes: ['user.blocked'],
  personalData: blocksPersonalData,
  routes: [routes],
});
