import type { RouteModule } from '../http/define-routes';
import docs from './docs/docs.routes';
import features from './features/features.routes';
import health from './health/health.routes';
import platform from './platform/platform.routes';

/** Every module's route table. Add a module here and it is mounted and documented. */
export const modules: RouteModule[] = [health, docs, features, platform];
