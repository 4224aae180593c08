import { defineModule } from '../define-module';
import routes from './blocks.routes';
import { blocksPersonalData } from './blocks.personal-data';

export default defineModule({
  name: 'blocks',
  personalData: blocksPersonalData,
  routes: [routes],
});
